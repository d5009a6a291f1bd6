package dev.parley.protocol;

import dev.parley.model.WireEnum;

/** What a viewer may see of a user: online, offline (with when last seen, if ever), or hidden by either one's setting. */
public enum PresenceStatus implements WireEnum {
    ONLINE,
    OFFLINE,
    HIDDEN
}
