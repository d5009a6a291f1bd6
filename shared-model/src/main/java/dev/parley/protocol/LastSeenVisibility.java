package dev.parley.protocol;

import dev.parley.model.WireEnum;

/**
 * Who may see a user's online status and last seen: everyone, contacts (users who share a conversation
 * with them), or nobody. Reciprocal: a user sees another's only if each one's setting admits the other.
 */
public enum LastSeenVisibility implements WireEnum {
    EVERYONE,
    CONTACTS,
    NOBODY
}
