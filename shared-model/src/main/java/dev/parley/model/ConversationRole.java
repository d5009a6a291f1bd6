package dev.parley.model;

/**
 * A member's role in a group: its one {@code owner} (who alone hands ownership on), its {@code admin}s (who manage it) and its
 * {@code member}s. The owner is an admin too, with more powers: every rule that admits an admin admits the owner.
 */
public enum ConversationRole implements WireEnum {
    OWNER,
    ADMIN,
    MEMBER;

    public boolean isAdmin() {
        return this != MEMBER;
    }
}
