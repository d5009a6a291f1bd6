package dev.parley.functions.store;

import static dev.parley.functions.store.KeysTable.IDENTITY_KEY;
import static dev.parley.functions.store.KeysTable.PK;
import static dev.parley.functions.store.KeysTable.PQ_LAST_RESORT_KEY;
import static dev.parley.functions.store.KeysTable.REGISTRATION_ID;
import static dev.parley.functions.store.KeysTable.SIGNED_PRE_KEY;
import static dev.parley.functions.store.KeysTable.SK;
import static dev.parley.functions.store.KeysTable.key;

import dev.parley.functions.retry.Backoff;
import dev.parley.functions.store.KeysTable.Kind;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceId;
import dev.parley.model.DeviceKeys;
import dev.parley.model.KeyBundle;
import dev.parley.model.KeyCounts;
import dev.parley.model.OneTimePreKey;
import dev.parley.model.SignedPublicKey;
import dev.parley.model.UserId;
import dev.parley.ports.KeyDirectory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DeleteRequest;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The key directory in its table ({@link KeysTable}). A fetch claims one-time keys the way a send takes its seq: one
 * UpdateItem adds one to the device's counter of each kind and returns it, and DynamoDB applies the updates of one item
 * one after the other, so each index goes to one fetch, however many run at once; that fetch then removes the key at that
 * index and returns it (DeleteItem returning the old item). A counter past its upload's end means none is left: the
 * bundle then carries no EC one-time key and the last-resort PQ key. A retry of an increment that was applied but answered
 * late skips an index, whose key is then never handed out: at most once, never twice. What is left is the upload's end
 * minus the counter, on the device's item: one read. An upload of a kind writes its keys under a new generation, then
 * moves the device to it (conditional on the generation it read, so two uploads of one device do not mix), then removes
 * the old generation's keys not handed out.
 */
public final class DynamoKeyDirectory implements KeyDirectory {
    private static final AttributeValue ZERO = AttributeValue.fromN("0");
    private static final AttributeValue ONE = AttributeValue.fromN("1");
    /** Two uploads of one device at once: the one that lost the race for the generation reads again, this many times. */
    private static final int UPLOAD_ATTEMPTS = 3;
    private final DynamoDbClient dynamo;
    private final String table;
    private final Backoff backoff;
    private final KeyDeviceLists deviceLists;

    public DynamoKeyDirectory(DynamoDbClient dynamo, String table, Backoff backoff) {
        this.dynamo = dynamo;
        this.table = table;
        this.backoff = backoff;
        this.deviceLists = new KeyDeviceLists(dynamo, table, backoff);
    }

    private Optional<Map<String, AttributeValue>> read(UserId user, String sort) {
        Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(key(user, sort)).consistentRead(true)).item();
        return item == null || item.isEmpty() ? Optional.empty() : Optional.of(item);
    }

    @Override
    public Uploaded upload(UserId user, DeviceId device, DeviceKeys upload) {
        return SdkErrors.translating("uploading keys", () -> {
            Optional<String> identity = read(user, KeysTable.IDENTITY_SORT).map(item -> item.get(IDENTITY_KEY).s());
            boolean changed = identity.isPresent() && !identity.get().equals(upload.identityKey());
            List<DeviceId> removed = changed ? removeEverythingBut(user, device) : List.of();
            if (identity.isEmpty() || changed) {
                deviceLists.identity(user, upload.identityKey(), changed);
            }
            for (int attempt = 1; ; attempt++) {
                try {
                    KeyCounts counts = store(user, device, upload);
                    deviceLists.list(user, device, upload.registrationId());
                    return new Uploaded(counts, changed, removed);
                } catch (ConditionalCheckFailedException anotherUpload) {
                    if (attempt == UPLOAD_ATTEMPTS) {
                        throw anotherUpload;
                    }
                }
            }
        });
    }

    /** The device's keys: the one-time kinds the upload carries under their next generation, then the device's item moved to them. */
    private KeyCounts store(UserId user, DeviceId device, DeviceKeys upload) {
        Map<String, AttributeValue> before = read(user, KeysTable.deviceSort(device.value())).orElse(Map.of());
        Map<String, String> names = new HashMap<>(Map.of("#identity", IDENTITY_KEY, "#registration", REGISTRATION_ID, "#signed", SIGNED_PRE_KEY,
                "#lastResort", PQ_LAST_RESORT_KEY));
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":identity", AttributeValue.fromS(upload.identityKey()),
                ":registration", AttributeValue.fromN(Integer.toString(upload.registrationId())), ":signed", KeysTable.signed(upload.signedPreKey()),
                ":lastResort", KeysTable.signed(upload.pqLastResortKey()), ":zero", ZERO));
        List<String> sets = new ArrayList<>(List.of("#identity = :identity", "#registration = :registration", "#signed = :signed",
                "#lastResort = :lastResort"));
        List<String> conditions = new ArrayList<>();
        List<WriteRequest> oldKeys = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            String k = kind.name().toLowerCase(java.util.Locale.ROOT);
            names.putAll(Map.of("#" + k + "Gen", kind.generation, "#" + k + "Next", kind.next, "#" + k + "End", kind.end));
            Optional<List<OneTimePreKey>> replacing = kind == Kind.EC ? upload.preKeys() : upload.pqPreKeys();
            if (replacing.isEmpty()) {
                sets.add("#" + k + "Gen = if_not_exists(#" + k + "Gen, :zero)");
                sets.add("#" + k + "Next = if_not_exists(#" + k + "Next, :zero)");
                sets.add("#" + k + "End = if_not_exists(#" + k + "End, :zero)");
                continue;
            }
            long generation = KeysTable.number(before, kind.generation);
            long generationNow = generation + 1;
            List<OneTimePreKey> keys = replacing.get();
            List<WriteRequest> puts = new ArrayList<>(keys.size());
            for (int index = 0; index < keys.size(); index++) {
                puts.add(WriteRequest.builder().putRequest(PutRequest.builder()
                        .item(KeysTable.withKey(user, KeysTable.keySort(kind, device.value(), generationNow, index), KeysTable.oneTime(keys.get(index)))).build()).build());
            }
            Batches.writeAll(dynamo, backoff, table, puts);
            values.putAll(Map.of(":" + k + "Gen", AttributeValue.fromN(Long.toString(generationNow)),
                    ":" + k + "End", AttributeValue.fromN(Integer.toString(keys.size())), ":" + k + "Was", AttributeValue.fromN(Long.toString(generation))));
            sets.add("#" + k + "Gen = :" + k + "Gen");
            sets.add("#" + k + "Next = :zero");
            sets.add("#" + k + "End = :" + k + "End");
            conditions.add("(attribute_not_exists(#" + k + "Gen) OR #" + k + "Gen = :" + k + "Was)");
            // What the old generation had not handed out: removed once the device has moved on.
            for (long index = Math.max(0, KeysTable.number(before, kind.next)); index < KeysTable.number(before, kind.end); index++) {
                oldKeys.add(WriteRequest.builder().deleteRequest(DeleteRequest.builder()
                        .key(key(user, KeysTable.keySort(kind, device.value(), generation, index))).build()).build());
            }
        }
        Map<String, AttributeValue> after = dynamo.updateItem(b -> {
            b.tableName(table).key(key(user, KeysTable.deviceSort(device.value()))).updateExpression("SET " + String.join(", ", sets))
                    .expressionAttributeNames(names).expressionAttributeValues(values).returnValues(ReturnValue.ALL_NEW);
            if (!conditions.isEmpty()) {
                b.conditionExpression(String.join(" AND ", conditions));
            }
        }).attributes();
        Batches.writeAll(dynamo, backoff, table, oldKeys);
        return KeysTable.counts(after);
    }

    /** Removes every item of the user's but the identity (a new identity key: the old devices' keys go); the devices removed but {@code kept}. */
    private List<DeviceId> removeEverythingBut(UserId user, DeviceId kept) {
        List<DeviceId> removed = new ArrayList<>();
        List<WriteRequest> deletes = new ArrayList<>();
        for (Map<String, AttributeValue> item : KeysTable.itemsOf(dynamo, table, user, "")) {
            String sort = item.get(SK).s();
            if (sort.equals(KeysTable.IDENTITY_SORT)) {
                continue;
            }
            if (sort.startsWith(KeysTable.DEVICE_PREFIX) && !sort.equals(KeysTable.deviceSort(kept.value()))) {
                removed.add(DeviceId.of(sort.substring(KeysTable.DEVICE_PREFIX.length())));
            }
            deletes.add(WriteRequest.builder().deleteRequest(DeleteRequest.builder().key(Map.of(PK, item.get(PK), SK, item.get(SK))).build()).build());
        }
        Batches.writeAll(dynamo, backoff, table, deletes);
        return removed;
    }

    @Override
    public Map<DeviceAddress, Integer> devices(Collection<UserId> users) {
        return SdkErrors.translating("reading the devices with keys", () -> deviceLists.devices(users));
    }

    @Override
    public KeyCounts count(UserId user, DeviceId device) {
        return SdkErrors.translating("counting keys", () -> read(user, KeysTable.deviceSort(device.value())).map(KeysTable::counts)
                .orElse(KeyCounts.NONE));
    }

    @Override
    public Optional<Fetched> fetch(UserId user, Optional<DeviceId> device) {
        return SdkErrors.translating("fetching keys", () -> {
            // A named device is claimed from at once: the claim's condition tells a device with no keys, and its answer carries the rest.
            List<DeviceId> devices = device.isPresent() ? List.of(device.get()) : KeysTable.itemsOf(dynamo, table, user, KeysTable.DEVICE_PREFIX).stream()
                    .map(found -> DeviceId.of(found.get(SK).s().substring(KeysTable.DEVICE_PREFIX.length()))).toList();
            List<KeyBundle.Device> bundles = new ArrayList<>();
            Map<DeviceId, KeyCounts> left = new HashMap<>();
            String identity = null;
            for (DeviceId id : devices) {
                Optional<Map<String, AttributeValue>> claimed = claim(user, id, bundles);
                if (claimed.isPresent()) {
                    left.put(id, KeysTable.counts(claimed.get()));
                    identity = claimed.get().get(IDENTITY_KEY).s();
                }
            }
            return bundles.isEmpty() ? Optional.<Fetched>empty() : Optional.of(new Fetched(new KeyBundle(user, identity, bundles), left));
        });
    }

    /**
     * Takes the next index of each kind on the device's item, then the keys at those indexes, and adds the device's bundle;
     * returns the device's item as the claim left it, empty when the device went meanwhile.
     */
    private Optional<Map<String, AttributeValue>> claim(UserId user, DeviceId device, List<KeyBundle.Device> bundles) {
        Map<String, AttributeValue> counters;
        try {
            counters = dynamo.updateItem(b -> b.tableName(table).key(key(user, KeysTable.deviceSort(device.value())))
                    .updateExpression("ADD #ecNext :one, #pqNext :one").conditionExpression("attribute_exists(#pk)")
                    .expressionAttributeNames(Map.of("#ecNext", Kind.EC.next, "#pqNext", Kind.PQ.next, "#pk", PK))
                    .expressionAttributeValues(Map.of(":one", ONE)).returnValues(ReturnValue.ALL_NEW)).attributes();
        } catch (ConditionalCheckFailedException gone) {
            // No keys: a device named that never uploaded, or whose keys were removed (a new identity) since the listing.
            return Optional.empty();
        }
        Optional<OneTimePreKey> preKey = take(user, device, Kind.EC, counters);
        Optional<OneTimePreKey> pqPreKey = take(user, device, Kind.PQ, counters);
        SignedPublicKey pq = pqPreKey.map(OneTimePreKey::signed).orElseGet(() -> KeysTable.signed(counters.get(PQ_LAST_RESORT_KEY)));
        bundles.add(new KeyBundle.Device(device, Integer.parseInt(counters.get(REGISTRATION_ID).n()), KeysTable.signed(counters.get(SIGNED_PRE_KEY)),
                preKey, pq, pqPreKey.isEmpty()));
        return Optional.of(counters);
    }

    /** The key at the index this claim took, removed as it is read; none past the upload's end, or when a new upload removed it meanwhile. */
    private Optional<OneTimePreKey> take(UserId user, DeviceId device, Kind kind, Map<String, AttributeValue> counters) {
        long index = KeysTable.number(counters, kind.next) - 1;
        if (index >= KeysTable.number(counters, kind.end)) {
            return Optional.empty();
        }
        Map<String, AttributeValue> old = dynamo.deleteItem(b -> b.tableName(table)
                .key(key(user, KeysTable.keySort(kind, device.value(), KeysTable.number(counters, kind.generation), index)))
                .returnValues(ReturnValue.ALL_OLD)).attributes();
        if (old == null || old.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(KeysTable.oneTime(old));
    }
}
