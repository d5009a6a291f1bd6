package dev.parley.model;

/** How a change entry of the log relates to the message it changes. */
public enum RelationKind implements WireEnum {
    /** The message's new content: the entry carries it, and the target is listed with it. */
    EDIT,
    /** The message deleted for everyone: the target is listed as a tombstone, and its content is erased. */
    DELETE,
    /**
     * A reaction to an end-to-end message, sealed as the message is: the entry carries its ciphertext, and the server, which cannot
     * read it, counts nothing; the members' apps open it and keep each member's latest. Erased with its target.
     */
    REACTION
}
