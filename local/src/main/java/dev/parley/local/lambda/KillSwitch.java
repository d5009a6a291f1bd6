package dev.parley.local.lambda;

import dev.parley.local.dynamodb.CallerGate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The local cloud's fault switch for a function that dies mid-invocation (killed for its memory, its
 * runtime crashed): armed for a function and a point, it kills the execution environment whose
 * invocation reaches the point. A dead process sends nothing more, so from that moment the DynamoDB
 * emulator and the Management API refuse every request of that environment, whichever of its threads
 * makes it (a Java thread cannot be stopped, but what it would have sent after the point never
 * arrives). The runtime reports the invocation as {@code Runtime.ExitError}, as Lambda does when a
 * runtime process exits, and throws the environment away; the function's other environments, and
 * the new ones it starts, are alive. An environment is told apart by its session token (each gets
 * its own, as each of Lambda's gets its own role session). One point is armed at a time, and it fires once.
 */
public final class KillSwitch implements CallerGate {
    /** Where a function is killed. */
    public sealed interface Point {
    }

    /** Right after a write of the function's to this table was applied (a PutItem, UpdateItem, ... answered 200). */
    public record AfterWrite(String table) implements Point {
    }

    /** Right after the function's {@code posts}-th {@code @connections} POST since arming was delivered. */
    public record AfterPosts(int posts) implements Point {
        public AfterPosts {
            if (posts < 1) {
                throw new IllegalArgumentException("kill after at least one post, was " + posts);
            }
        }
    }

    private static final Set<String> WRITES = Set.of("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems");

    private String armedPrincipal;
    private Point armedPoint;
    private int postsSinceArmed;
    /** The environments killed, as principal and session, and the point each was killed at; thrown away by the runtime, so never alive again. */
    private final Map<String, Point> dead = new HashMap<>();
    private final Map<Point, Integer> killsAt = new HashMap<>();

    /** Kills the environment of {@code function} that reaches {@code point}, once. */
    public synchronized void arm(String function, Point point) {
        armedPrincipal = FunctionPrincipals.accessKeyId(function);
        armedPoint = point;
        postsSinceArmed = 0;
    }

    public synchronized void disarm() {
        armedPrincipal = null;
        armedPoint = null;
    }

    /** How many invocations the switch has killed. */
    public synchronized int kills() {
        return killsAt.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** How many invocations the switch has killed at {@code point}, counted when each ended (whenever the switch was armed next). */
    public synchronized int kills(Point point) {
        return killsAt.getOrDefault(point, 0);
    }

    private static String environment(String principal, String session) {
        return principal + "/" + session;
    }

    @Override
    public synchronized Optional<String> refusal(String principal, String session) {
        return dead.containsKey(environment(principal, session))
                ? Optional.of("the calling function was killed (the local cloud's kill switch)") : Optional.empty();
    }

    @Override
    public synchronized void applied(String principal, String session, String operation, List<String> tables) {
        if (principal.equals(armedPrincipal) && armedPoint instanceof AfterWrite(String table) && WRITES.contains(operation) && tables.contains(table)) {
            kill(principal, session);
        }
    }

    /** A POST signed by {@code principal} in {@code session} was delivered to its connection. */
    public synchronized void posted(String principal, String session) {
        if (principal.equals(armedPrincipal) && armedPoint instanceof AfterPosts(int posts) && ++postsSinceArmed >= posts) {
            kill(principal, session);
        }
    }

    private void kill(String principal, String session) {
        dead.put(environment(principal, session), armedPoint);
        disarm();
    }

    /** An invocation of {@code function} in the environment with {@code session} ended: whether it was killed. */
    synchronized boolean ended(String function, String session) {
        Point killedAt = dead.get(environment(FunctionPrincipals.accessKeyId(function), session));
        if (killedAt != null) {
            killsAt.merge(killedAt, 1, Integer::sum);
        }
        return killedAt != null;
    }
}
