package dev.parley.model;

/**
 * A send whose envelopes do not match the recipients' devices ({@link DeviceMismatch}): refused before anything is stored;
 * the client fetches the keys of the devices named, and sends again with the same id.
 */
public final class DevicesChangedException extends DomainException {
    private final DeviceMismatch mismatch;

    public DevicesChangedException(DeviceMismatch mismatch) {
        super(ErrorCode.DEVICES_CHANGED, "the envelopes do not match the recipients' devices (missing " + mismatch.missing()
                + ", extra " + mismatch.extra() + ", stale " + mismatch.stale() + "); nothing was stored: fetch their keys and send again with the same id");
        this.mismatch = mismatch;
    }

    public DeviceMismatch mismatch() {
        return mismatch;
    }
}
