package dev.parley.testsupport.ports;

import dev.parley.model.ConversationId;
import dev.parley.model.MediaId;
import dev.parley.model.UserId;
import dev.parley.ports.MediaStore;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Media in memory, for the use cases' tests: a grant is remembered, and {@link #post} stands for the client's upload, which
 * S3 takes only as the grant says (the local S3 proves that part: S3EmulatorTest).
 */
public final class InMemoryMediaStore implements MediaStore {
    private final Clock clock;
    private final Map<MediaId, StoredMedia> granted = new HashMap<>();
    private final Map<MediaId, StoredMedia> stored = new HashMap<>();

    public InMemoryMediaStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized UploadGrant grantUpload(MediaId id, String contentType, long size, UserId uploader, Optional<ConversationId> conversation) {
        granted.put(id, new StoredMedia(contentType, size, uploader, conversation));
        return new UploadGrant("memory://media/" + id, Map.of("key", "m/" + id), clock.instant().plus(Duration.ofMinutes(5)));
    }

    /** The client posts the granted object. */
    public synchronized void post(MediaId id) {
        StoredMedia grant = granted.get(id);
        if (grant == null) {
            throw new IllegalStateException("no grant for " + id);
        }
        stored.put(id, grant);
    }

    /** An object as a test puts it, whatever any grant said. */
    public synchronized void put(MediaId id, StoredMedia media) {
        stored.put(id, media);
    }

    @Override
    public synchronized Optional<StoredMedia> find(MediaId id) {
        return Optional.ofNullable(stored.get(id));
    }

    @Override
    public synchronized void delete(MediaId id) {
        stored.remove(id);
    }

    @Override
    public synchronized DownloadGrant grantDownload(MediaId id) {
        return new DownloadGrant("memory://media/" + id + "?signed", clock.instant().plus(Duration.ofMinutes(5)));
    }
}
