package dev.parley.soak;

import dev.parley.functions.manifest.ParleyManifest;
import dev.parley.local.lambda.KillSwitch;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the soak kills the send function, each point in turn: after the rate limit's write (nothing of the message yet),
 * after the seq's claim (a seq taken and left empty: a void entry once abandoned), after the store (stored, not acknowledged:
 * the retry finds it), after the first post of the fast path (some members have it live, the sender has no ack). The kill
 * switch counts each kill at the point that fired it.
 */
final class SendKillPoints {
    private static final String SEND = "route-message-send";
    private static final List<Map.Entry<String, KillSwitch.Point>> POINTS = List.of(
            Map.entry("afterTheRateLimit", new KillSwitch.AfterWrite(ParleyManifest.LIMITS)),
            Map.entry("afterTheSeqClaim", new KillSwitch.AfterWrite(ParleyManifest.CONVERSATIONS)),
            Map.entry("afterTheStore", new KillSwitch.AfterWrite(ParleyManifest.MESSAGES)),
            Map.entry("afterTheFirstPost", new KillSwitch.AfterPosts(1)));

    private int next;

    /** Arms the next point. */
    synchronized void arm(KillSwitch killSwitch) {
        killSwitch.arm(SEND, POINTS.get(next).getValue());
        next = (next + 1) % POINTS.size();
    }

    /** The kills so far by point, as {@code sendsKilled.<point>}. */
    static Map<String, Long> killsByPoint(KillSwitch killSwitch) {
        Map<String, Long> named = new LinkedHashMap<>();
        POINTS.forEach(point -> named.put("sendsKilled." + point.getKey(), (long) killSwitch.kills(point.getValue())));
        return named;
    }
}
