package dev.parley.functions.usecase;

import dev.parley.model.DomainException;
import dev.parley.model.ErrorCode;
import dev.parley.ports.ConversationRepository;
import dev.parley.ports.PushDevices;
import dev.parley.ports.PushService;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;

/**
 * {@code device.register}, {@code device.unregister} and {@code conversation.mute}: which devices push
 * reaches, and for which conversations. A device holds at most one token, and a token belongs to one
 * device: registering a token another device held (the phone passed to another user, an account
 * switched on it) takes it from that device, which gets no more push for it; registering a new token
 * on a device (the OS refreshed it, the app was reinstalled) retires the endpoint of its old one.
 */
public final class Devices {
    /** How often a registration takes the token from a device that registered it at the same moment before it gives up. */
    static final int REGISTER_ATTEMPTS = 3;
    private final PushDevices devices;
    private final PushService push;
    private final PushEndpoints endpoints;
    private final ConversationRepository conversations;

    public Devices(PushDevices devices, PushService push, ConversationRepository conversations) {
        this.devices = devices;
        this.push = push;
        this.endpoints = new PushEndpoints(devices, push);
        this.conversations = conversations;
    }

    public ServerFrame.DeviceRegistered register(Caller caller, ClientFrame.DeviceRegister register) {
        // The endpoint names its device, for whoever reads SNS's side (the endpoint events, the console).
        String endpoint = push.endpointFor(register.platform(), register.token(), PushEndpoints.userData(caller.user(), caller.device()));
        PushDevices.PushDevice device = new PushDevices.PushDevice(caller.user(), caller.device(), register.platform(), register.token(), endpoint);
        java.util.Optional<PushDevices.PushDevice> current = devices.registered(caller.user(), caller.device());
        if (current.equals(java.util.Optional.of(device))) {
            // What an app does on every launch: the endpoint is brought up to date above; the registration is as it was.
            return new ServerFrame.DeviceRegistered(register.platform());
        }
        current.filter(old -> !old.token().equals(register.token())).ifPresent(old -> endpoints.retire(old, endpoint));
        for (int attempt = 0; attempt < REGISTER_ATTEMPTS; attempt++) {
            // A token registered by another device is taken from it; racing another registration, the later one wins.
            devices.holderOf(register.platform(), register.token())
                    .filter(holder -> !holder.isSameDevice(caller.user(), caller.device()))
                    .ifPresent(devices::release);
            if (devices.register(device)) {
                return new ServerFrame.DeviceRegistered(register.platform());
            }
        }
        throw new DomainException(ErrorCode.CONFLICT, "the token is being registered by another device at the same time; retry");
    }

    public ServerFrame.DeviceUnregistered unregister(Caller caller) {
        devices.registered(caller.user(), caller.device()).ifPresent(device -> endpoints.retire(device, ""));
        return new ServerFrame.DeviceUnregistered();
    }

    public ServerFrame.ConversationMuted mute(Caller caller, ClientFrame.ConversationMute mute) {
        conversations.requireMembership(mute.conversationId(), caller.user());
        devices.mute(caller.user(), mute.conversationId(), mute.until());
        return new ServerFrame.ConversationMuted(mute.conversationId(), mute.until());
    }
}
