package dev.parley.functions.handler;

import dev.parley.model.ConnectionId;
import dev.parley.model.ConversationId;
import dev.parley.model.UserId;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.util.List;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;

/**
 * SnapStart priming. The stack publishes every function with SnapStart: Lambda initializes one
 * execution environment per version, runs the CRaC hooks, snapshots it, and every cold start
 * restores that snapshot. Before the snapshot, a handler warms what its first request would
 * otherwise pay for (class loading, Jackson and the frame codec, the SDK clients' marshalling,
 * signing and first connections) with calls that change nothing: reads of a user and a
 * conversation that do not exist, and a post to a connection that does not exist (answered 410).
 * The local Lambda runtime calls the same hooks when it deploys a function, so they run in every test.
 */
abstract class PrimedHandler implements Resource {
    private static final Logger LOG = LoggerFactory.getLogger(PrimedHandler.class);
    /** Nobody: no user, conversation or connection has these ids (user ids the protocol accepts have no such prefix in use). */
    static final UserId NOBODY = UserId.of("parley-priming");
    static final ConversationId NO_CONVERSATION = ConversationId.direct(NOBODY, UserId.of("parley-priming-2"));
    static final ConnectionId NO_CONNECTION = ConnectionId.of("AAAAAAAAAAAAAAA=");

    /** What this handler warms before the snapshot; nothing for a handler built by a test. */
    private Runnable prime = () -> { };

    /**
     * For the constructor that builds the handler from its environment: warms this handler's paths
     * with {@code prime} (which may read and post, never write) when Lambda's CRaC context runs the
     * hooks before the snapshot, or the local runtime does at deploy.
     */
    protected final void primeBeforeSnapshot(Runnable prime) {
        this.prime = prime;
        Core.getGlobalContext().register(this);
    }

    @Override
    public final void beforeCheckpoint(Context<? extends Resource> context) {
        long started = System.nanoTime();
        try {
            prime.run();
            LOG.info("primed", StructuredArguments.entry("handler", getClass().getSimpleName()),
                    StructuredArguments.entry("ms", (System.nanoTime() - started) / 1_000_000));
        } catch (RuntimeException e) {
            // A snapshot without priming still works: its first requests pay for what priming would have warmed.
            LOG.warn("priming failed; the first requests pay for it", StructuredArguments.entry("handler", getClass().getSimpleName()), e);
        }
    }

    @Override
    public final void afterRestore(Context<? extends Resource> context) {
        // Nothing was made unique at initialization, and the SDK clients reconnect what the snapshot held open.
    }

    /** The lookups and posts every function that delivers makes: the connections table, and the Management API. */
    static void primeDelivery(Wiring wiring, FrameCodec codec) {
        wiring.delivery().liveConnections(List.of(NOBODY));
        wiring.delivery().postTo(NO_CONNECTION, codec.encode(new ServerFrame.Pong()));
    }
}
