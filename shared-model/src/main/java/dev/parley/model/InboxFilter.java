package dev.parley.model;

/** Which notifications {@code inbox.list} returns: all but the archived, the unread, the unseen, or the archived. */
public enum InboxFilter implements WireEnum {
    ALL,
    UNREAD,
    UNSEEN,
    ARCHIVED;

    public boolean admits(NotificationState state) {
        return switch (this) {
            case ALL -> state != NotificationState.ARCHIVED;
            case UNREAD -> state.unread();
            case UNSEEN -> state.unseen();
            case ARCHIVED -> state == NotificationState.ARCHIVED;
        };
    }
}
