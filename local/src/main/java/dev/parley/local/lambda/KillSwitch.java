package dev.parley.local.lambda;

import dev.parley.local.dynamodb.CallerGate;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The local cloud's fault switch for a function that dies mid-invocation (killed for its memory, its
 * runtime crashed): armed for a function and a point, it kills the function's running invocations
 * when the point is reached. A dead process sends nothing more, so from that moment the DynamoDB
 * emulator and the Management API refuse the function's requests (what it would have done after the
 * point never happens), and the runtime reports each of those invocations as {@code Runtime.ExitError},
 * as Lambda does when a runtime process exits, and throws its execution environment away. The function
 * is alive again once its invocations running at that moment, and any started meanwhile, have ended.
 * One point is armed at a time, and it fires once.
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
    private String deadPrincipal;
    private int running;
    private int kills;

    /** Kills {@code function} when it reaches {@code point}, once. */
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
        return kills;
    }

    @Override
    public synchronized Optional<String> refusal(String principal) {
        return principal.equals(deadPrincipal) ? Optional.of("the calling function was killed (the local cloud's kill switch)") : Optional.empty();
    }

    @Override
    public synchronized void applied(String principal, String operation, List<String> tables) {
        if (principal.equals(armedPrincipal) && armedPoint instanceof AfterWrite(String table) && WRITES.contains(operation) && tables.contains(table)) {
            kill();
        }
    }

    /** A POST signed by {@code principal} was delivered to its connection. */
    public synchronized void posted(String principal) {
        if (principal.equals(armedPrincipal) && armedPoint instanceof AfterPosts(int posts) && ++postsSinceArmed >= posts) {
            kill();
        }
    }

    private void kill() {
        deadPrincipal = armedPrincipal;
        disarm();
    }

    /** An invocation of {@code function} begins. */
    synchronized void started(String function) {
        if (FunctionPrincipals.accessKeyId(function).equals(deadPrincipal) || FunctionPrincipals.accessKeyId(function).equals(armedPrincipal)) {
            running++;
        }
    }

    /** An invocation of {@code function} ended: whether it was killed. */
    synchronized boolean ended(String function) {
        String principal = FunctionPrincipals.accessKeyId(function);
        if (!principal.equals(deadPrincipal) && !principal.equals(armedPrincipal)) {
            return false;
        }
        running = Math.max(0, running - 1);
        if (!principal.equals(deadPrincipal)) {
            return false;
        }
        kills++;
        if (running == 0) {
            deadPrincipal = null;
        }
        return true;
    }
}
