package dev.parley.functions.store;

import static dev.parley.functions.store.ConnectionsTable.ENTRY_LEASE;

import dev.parley.model.WireEnum;
import dev.parley.ports.ConnectionRegistry.Seen;
import dev.parley.protocol.LastSeenVisibility;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Presence as a user item ({@code U#}) holds it: the leases of its connection entries, the last close, the setting. */
final class UserItems {
    private UserItems() {
    }

    /** The leases of the item's connection entries; an entry that cannot be read is skipped. */
    static Stream<Instant> leases(Map<String, AttributeValue> item) {
        if (item == null) {
            return Stream.empty();
        }
        return item.entrySet().stream().filter(e -> ConnectionsTable.connectionOfEntry(e.getKey()).isPresent() && e.getValue() != null
                        && e.getValue().hasM() && e.getValue().m().containsKey(ENTRY_LEASE))
                .flatMap(e -> {
                    try {
                        return Stream.of(Instant.ofEpochSecond(Long.parseLong(e.getValue().m().get(ENTRY_LEASE).n())));
                    } catch (RuntimeException unreadable) {
                        return Stream.empty();
                    }
                });
    }

    /**
     * Online while a lease runs at {@code now}; otherwise last seen at the later of the last close and the
     * last lease that ran out (a connection whose $disconnect was lost is seen until its lease ends).
     */
    static Seen seen(Map<String, AttributeValue> item, Instant now) {
        boolean online = leases(item).anyMatch(lease -> lease.isAfter(now));
        LastSeenVisibility visibility = item.containsKey(ConnectionsTable.VISIBILITY)
                ? WireEnum.fromWireName(LastSeenVisibility.class, item.get(ConnectionsTable.VISIBILITY).s()).orElse(LastSeenVisibility.EVERYONE)
                : LastSeenVisibility.EVERYONE;
        if (online) {
            return new Seen(true, OptionalLong.empty(), visibility);
        }
        OptionalLong closed = item.containsKey(ConnectionsTable.LAST_SEEN)
                ? OptionalLong.of(Long.parseLong(item.get(ConnectionsTable.LAST_SEEN).n())) : OptionalLong.empty();
        OptionalLong last = Stream.concat(closed.isPresent() ? Stream.of(closed.getAsLong()) : Stream.empty(),
                leases(item).map(Instant::toEpochMilli)).mapToLong(Long::longValue).max();
        return new Seen(false, last, visibility);
    }
}
