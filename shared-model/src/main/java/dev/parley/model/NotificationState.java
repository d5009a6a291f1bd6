package dev.parley.model;

/**
 * Where a notification stands in its user's inbox. {@link #UNSEEN} and {@link #SEEN} are unread; only {@link #UNSEEN} is
 * unseen; {@link #ARCHIVED} counts as neither and stays archived. The inbox's two counts are the numbers of notifications
 * in these states ({@link InboxCounts#of}).
 */
public enum NotificationState implements WireEnum {
    UNSEEN,
    SEEN,
    READ,
    ARCHIVED;

    public boolean unread() {
        return this == UNSEEN || this == SEEN;
    }

    public boolean unseen() {
        return this == UNSEEN;
    }
}
