package dev.parley.model;

import java.util.List;

/**
 * How a send's envelopes differ from the recipients' devices now: devices with keys that got no envelope ({@code missing}),
 * envelopes for devices that have no keys or are not the send's to address ({@code extra}), and envelopes encrypted to a
 * registration id the device no longer has, a reinstall ({@code stale}).
 */
public record DeviceMismatch(List<DeviceAddress> missing, List<DeviceAddress> extra, List<DeviceAddress> stale) {
    public DeviceMismatch {
        missing = List.copyOf(missing);
        extra = List.copyOf(extra);
        stale = List.copyOf(stale);
    }

    public boolean isEmpty() {
        return missing.isEmpty() && extra.isEmpty() && stale.isEmpty();
    }
}
