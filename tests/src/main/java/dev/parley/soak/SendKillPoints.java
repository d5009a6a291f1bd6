package dev.parley.soak;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.local.lambda.KillSwitch;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the soak kills the send function, each point in turn: after the rate limit's write (nothing of the message yet),
 * after the seq's claim (a seq taken and left empty: a void entry once abandoned), after the store (stored, not acknowledged:
 * the retry finds it), after the first post of the fast path (some members have it live, the sender has no ack). Each kill is
 * credited to the point armed when it happened.
 */
final class SendKillPoints {
    private static final String SEND = "route-message-send";
    private static final List<Map.Entry<String, KillSwitch.Point>> POINTS = List.of(
            Map.entry("afterTheRateLimit", new KillSwitch.AfterWrite(ParleyManifest.LIMITS)),
            Map.entry("afterTheSeqClaim", new KillSwitch.AfterWrite(ParleyManifest.CONVERSATIONS)),
            Map.entry("afterTheStore", new KillSwitch.AfterWrite(ParleyManifest.MESSAGES)),
            Map.entry("afterTheFirstPost", new KillSwitch.AfterPosts(1)));

    private final Map<String, Long> kills = new LinkedHashMap<>();
    private int next;
    private int armed = -1;
    private int killsSeen;

    SendKillPoints() {
        POINTS.forEach(point -> kills.put(point.getKey(), 0L));
    }

    /** Arms the next point, after crediting the kill of the one armed before, if it fired. */
    synchronized void arm(KillSwitch killSwitch) {
        credit(killSwitch);
        armed = next;
        next = (next + 1) % POINTS.size();
        killSwitch.arm(SEND, POINTS.get(armed).getValue());
    }

    /** The kills so far by point, as {@code sendsKilled.<point>}. */
    synchronized Map<String, Long> killsByPoint(KillSwitch killSwitch) {
        credit(killSwitch);
        Map<String, Long> named = new LinkedHashMap<>();
        kills.forEach((point, count) -> named.put("sendsKilled." + point, count));
        return named;
    }

    private void credit(KillSwitch killSwitch) {
        int now = killSwitch.kills();
        if (armed >= 0 && now > killsSeen) {
            kills.merge(POINTS.get(armed).getKey(), (long) (now - killsSeen), Long::sum);
        }
        killsSeen = now;
    }
}
