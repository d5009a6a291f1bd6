package dev.parley.client;

import dev.parley.model.UserId;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.ServerFrame;
import java.time.Clock;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** The users whose presence the app follows: subscribed, renewed before the server's subscription runs out and after each reconnect. */
final class PresenceWatch {
    /** The longest subscription the server grants; the client renews at four fifths of it. */
    static final int TTL_SECONDS = 300;
    private final Requests requests;
    private final ClientLoop loop;
    private final Clock clock;
    private final Set<UserId> watched = new LinkedHashSet<>();
    private long renewedAt;

    PresenceWatch(Requests requests, ClientLoop loop, Clock clock) {
        this.requests = requests;
        this.loop = loop;
        this.clock = clock;
    }

    CompletableFuture<ServerFrame.PresenceBatch> subscribe(List<UserId> users) {
        return loop.call(() -> watched.addAll(users))
                .thenCompose(ignored -> requests.ask(new ClientFrame.PresenceSubscribe(users, TTL_SECONDS), ServerFrame.PresenceBatch.class))
                .whenComplete((batch, failure) -> loop.execute(() -> renewedAt = clock.millis()));
    }

    void unsubscribe(List<UserId> users) {
        loop.execute(() -> users.forEach(watched::remove));
    }

    /** Every tick, online: renews a subscription at four fifths of its life. */
    void renewIfDue() {
        if (!watched.isEmpty() && clock.millis() - renewedAt > TTL_SECONDS * 800L) {
            renew();
        }
    }

    /** The followed users' subscription again, a hundred to a frame (the server's bound); the answers go to the listener. */
    void renew() {
        if (watched.isEmpty()) {
            return;
        }
        renewedAt = clock.millis();
        List<UserId> users = List.copyOf(watched);
        for (int from = 0; from < users.size(); from += ClientFrame.MAX_PRESENCE_USERS) {
            requests.askNow(new ClientFrame.PresenceSubscribe(users.subList(from, Math.min(users.size(), from + ClientFrame.MAX_PRESENCE_USERS)),
                    TTL_SECONDS), ServerFrame.PresenceBatch.class, Requests.newId()).exceptionally(lost -> null);
        }
    }
}
