package dev.parley.functions.usecase;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.UserId;
import dev.parley.ports.PushDevices;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code settings.update}'s {@code notification_push}: per user and category, push on or off. The inbox gets every
 * notification either way; a category the deployment marks critical (security notices) cannot be turned off.
 */
public final class NotificationPushSettings {
    private final PushDevices devices;
    private final Map<String, Notifications.Category> categories;

    public NotificationPushSettings(PushDevices devices, Map<String, Notifications.Category> categories) {
        this.devices = devices;
        this.categories = new LinkedHashMap<>(categories);
    }

    /**
     * Refuses what cannot be set, before anything of the frame is: a category the deployment does not have is a bad
     * request naming it; turning off a critical one is forbidden.
     */
    public void check(Map<String, Boolean> switches) {
        switches.forEach((name, on) -> {
            Notifications.Category category = categories.get(name);
            if (category == null) {
                throw new InvalidFieldException("notification_push." + name, "is not a notification category of this deployment; it has "
                        + categories.keySet());
            }
            if (category.critical() && !on) {
                throw new DomainException(ErrorCode.FORBIDDEN, "notification category '" + name + "' is critical: its push cannot be turned off");
            }
        });
    }

    /** Sets these categories' push, and answers every category's as it is now (critical ones always on), in the deployment's order. */
    public Map<String, Boolean> set(UserId user, Map<String, Boolean> switches) {
        check(switches);
        Set<String> off = devices.setNotificationPush(user, switches);
        Map<String, Boolean> now = new LinkedHashMap<>();
        categories.values().forEach(category -> now.put(category.name(), category.critical() || !off.contains(category.name())));
        return now;
    }
}
