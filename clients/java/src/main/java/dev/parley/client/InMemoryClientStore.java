package dev.parley.client;

import dev.parley.model.ClientMessageId;
import dev.parley.model.ConversationId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** The client's state for the life of the process: the default. */
public class InMemoryClientStore implements ClientStore {
    private final Map<ConversationId, Long> held = new LinkedHashMap<>();
    private final Map<ClientMessageId, PendingSend> pending = new LinkedHashMap<>();
    private OptionalLong changesAt = OptionalLong.empty();

    @Override
    public synchronized Map<ConversationId, Long> heldUpTo() {
        return Map.copyOf(held);
    }

    @Override
    public synchronized void heldUpTo(ConversationId conversation, long seq) {
        held.put(conversation, seq);
        changed();
    }

    @Override
    public synchronized OptionalLong changesAt() {
        return changesAt;
    }

    @Override
    public synchronized void changesAt(long at) {
        changesAt = OptionalLong.of(at);
        changed();
    }

    @Override
    public synchronized List<PendingSend> pendingSends() {
        return List.copyOf(new ArrayList<>(pending.values()));
    }

    @Override
    public synchronized void addPendingSend(PendingSend send) {
        pending.put(send.id(), send);
        changed();
    }

    @Override
    public synchronized void removePendingSend(ClientMessageId id) {
        if (pending.remove(id) != null) {
            changed();
        }
    }

    @Override
    public synchronized void replacePendingSend(PendingSend send) {
        if (pending.replace(send.id(), send) != null) {
            changed();
        }
    }

    /** Called after each change, under the store's lock: a subclass writes it out. */
    protected void changed() {
    }
}
