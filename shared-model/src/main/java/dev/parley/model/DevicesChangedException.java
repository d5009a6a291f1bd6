package dev.parley.model;

/**
 * A send whose envelopes do not match the recipients' devices ({@link DeviceMismatch}): refused before anything is stored;
 * the client fetches the keys of the devices named, and sends again with the same id.
 */
public final class DevicesChangedException extends DomainException {
    private final DeviceMismatch mismatch;

    public DevicesChangedException(DeviceMismatch mismatch) {
        // The devices are in the error's lists; the message only counts them, so that it stays short however many there are.
        super(ErrorCode.DEVICES_CHANGED, "the envelopes do not match the recipients' devices (" + mismatch.missing().size() + " missing, "
                + mismatch.extra().size() + " extra, " + mismatch.stale().size() + " stale); nothing was stored: fetch their keys and send again with the same id");
        this.mismatch = mismatch;
    }

    public DeviceMismatch mismatch() {
        return mismatch;
    }
}
