package dev.parley.functions.usecase;

import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.ports.PushDevices;
import dev.parley.ports.PushDevices.PushDevice;
import dev.parley.ports.PushService;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The push service's endpoints over their lives: retiring a registration (the device unregistered,
 * registered another token, or its token was reported dead), and acting on the platform application's
 * endpoint events ({@code EndpointUpdated}, {@code DeliveryFailure}), which is how a token FCM or APNs
 * declared invalid is found when no push happens to hit it.
 */
public final class PushEndpoints {
    private static final Logger LOG = LoggerFactory.getLogger(PushEndpoints.class);

    /** What an endpoint event came to. */
    public enum EventOutcome {
        /** The endpoint is disabled and a device had it registered: the device is unregistered and the endpoint deleted. */
        DEVICE_RETIRED,
        /** The endpoint is disabled and no device has it registered any more: it is deleted. */
        ORPHAN_DELETED,
        /** The endpoint is enabled (its token was registered again since) or already gone: nothing to do. */
        NOTHING
    }

    private final PushDevices devices;
    private final PushService service;

    public PushEndpoints(PushDevices devices, PushService service) {
        this.devices = devices;
        this.service = service;
    }

    /**
     * Takes the registration from its device, if the device still has this one, and deletes its endpoint
     * unless another device holds the token now (an endpoint is per token) or it is {@code keep}, the
     * endpoint the device registers next. Whether this call took the registration (of two racing, one does).
     */
    boolean retire(PushDevice device, String keep) {
        Optional<PushDevice> now = devices.registered(device.user(), device.device());
        boolean taken = now.isPresent() && now.get().endpoint().equals(device.endpoint()) && devices.unregister(device.user(), device.device());
        boolean heldByAnother = devices.holderOf(device.platform(), device.token())
                .filter(holder -> !holder.isSameDevice(device.user(), device.device())).isPresent();
        if (!device.endpoint().equals(keep) && !heldByAnother) {
            service.deleteEndpoint(device.endpoint());
        }
        return taken;
    }

    /**
     * An endpoint event. Events come late and out of order, so the endpoint's state now decides, not the
     * event: an endpoint enabled again (the app registered its token anew) is left alone. A disabled one
     * is retired from the device its user data names (Parley registers {@code user/device}, and updates it
     * when the token moves to another device), or deleted if that device has registered something else.
     */
    public EventOutcome onEndpointEvent(String endpoint) {
        Optional<PushService.EndpointState> state = service.endpointState(endpoint);
        if (state.isEmpty() || state.get().enabled()) {
            return EventOutcome.NOTHING;
        }
        Optional<PushDevice> registration = owner(state.get().userData()).flatMap(owner -> devices.registered(owner.user(), owner.device()))
                .filter(device -> device.endpoint().equals(endpoint));
        if (registration.isPresent()) {
            if (!retire(registration.get(), "")) {
                // Its other event (a failure comes with an update) retired it at the same moment.
                return EventOutcome.NOTHING;
            }
            LOG.info("push endpoint disabled by the platform; device {} of {} retired", registration.get().device().value(),
                    registration.get().user().value());
            return EventOutcome.DEVICE_RETIRED;
        }
        service.deleteEndpoint(endpoint);
        LOG.info("disabled push endpoint no device has registered deleted");
        return EventOutcome.ORPHAN_DELETED;
    }

    private record Owner(UserId user, DeviceId device) {
    }

    /** The device an endpoint's user data names ({@code user/device}; neither id can hold a slash); empty if it names none. */
    private static Optional<Owner> owner(String userData) {
        int slash = userData == null ? -1 : userData.indexOf('/');
        if (slash < 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Owner(UserId.of(userData.substring(0, slash)), DeviceId.of(userData.substring(slash + 1))));
        } catch (IllegalArgumentException notParleys) {
            return Optional.empty();
        }
    }

    /** What Parley writes as an endpoint's user data: the device it was registered for. */
    static String userData(UserId user, DeviceId device) {
        return user.value() + "/" + device.value();
    }
}
