package dev.parley.model;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Whom a message mentions: members by user id, and {@code everyone} for the wire's {@code "*"} (a group admin's
 * right). Kept in the order given, without repeats.
 */
public record Mentions(List<UserId> users, boolean everyone) {
    /** More mentions than this make a message a broadcast: {@code "*"} is for that. */
    public static final int MAX = 50;
    /** The wire's name for every member. */
    public static final String EVERYONE = "*";
    public static final Mentions NONE = new Mentions(List.of(), false);

    public Mentions {
        users = List.copyOf(new LinkedHashSet<>(users));
        if (users.size() + (everyone ? 1 : 0) > MAX) {
            throw new InvalidFieldException("mentions", "must name at most " + MAX + " members, named " + (users.size() + (everyone ? 1 : 0)));
        }
    }

    /** The wire's list: user ids and {@code "*"}; a blank or malformed entry is refused naming its index. */
    public static Mentions parse(List<String> names) {
        List<UserId> users = new ArrayList<>();
        boolean everyone = false;
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (EVERYONE.equals(name)) {
                everyone = true;
                continue;
            }
            try {
                users.add(UserId.of(name));
            } catch (IllegalArgumentException bad) {
                throw new InvalidFieldException("mentions[" + i + "]", "must be a user id or \"*\": " + bad.getMessage());
            }
        }
        return new Mentions(users, everyone);
    }

    /** The wire's list. */
    public List<String> names() {
        List<String> names = new ArrayList<>(users.stream().map(UserId::value).toList());
        if (everyone) {
            names.add(EVERYONE);
        }
        return names;
    }

    public boolean isEmpty() {
        return users.isEmpty() && !everyone;
    }

    /** Whether the message mentions this user, by name or as one of everyone. */
    public boolean mention(UserId user) {
        return everyone || users.contains(user);
    }
}
