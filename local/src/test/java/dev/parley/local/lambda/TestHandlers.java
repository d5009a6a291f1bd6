package dev.parley.local.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketResponse;
import dev.parley.functions.runtime.FunctionEnvironment;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** Handlers the runtime and gateway tests deploy. */
public final class TestHandlers {
    private TestHandlers() {
    }

    /** Answers with what it saw: the body, route, connection, the GREETING variable and the remaining time. */
    public static final class Echo implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
        public static final AtomicInteger CONSTRUCTED = new AtomicInteger();
        private final String greeting;

        public Echo() {
            CONSTRUCTED.incrementAndGet();
            greeting = FunctionEnvironment.get("GREETING").orElse("none");
        }

        @Override
        public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
            APIGatewayV2WebSocketResponse response = new APIGatewayV2WebSocketResponse();
            response.setStatusCode(200);
            response.setBody(greeting + "|" + event.getRequestContext().getRouteKey() + "|" + event.getBody() + "|"
                    + context.getFunctionName() + "|" + (context.getRemainingTimeInMillis() > 0));
            return response;
        }
    }

    public static final class Slow implements RequestHandler<Map<String, Object>, String> {
        @Override
        public String handleRequest(Map<String, Object> input, Context context) {
            try {
                Thread.sleep(((Number) input.getOrDefault("sleepMillis", 0)).longValue());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "done";
        }
    }

    /** The kill switch the next {@link KilledThenHangs} reports a post to. */
    public static volatile KillSwitch killSwitch;

    /** Posts once (which the armed switch kills it for), then hangs on, as a killed process's leftover thread may. */
    public static final class KilledThenHangs implements RequestHandler<Map<String, Object>, String> {
        @Override
        public String handleRequest(Map<String, Object> input, Context context) {
            killSwitch.posted(FunctionPrincipals.accessKeyId(context.getFunctionName()),
                    FunctionEnvironment.get(dev.parley.functions.config.ParleyConfig.SESSION_TOKEN).orElseThrow());
            try {
                Thread.sleep(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "done";
        }
    }

    public static final class Failing implements RequestHandler<Map<String, Object>, String> {
        @Override
        public String handleRequest(Map<String, Object> input, Context context) {
            throw new IllegalStateException("boom: " + input.get("why"));
        }
    }

    public static final class BrokenConstructor implements RequestHandler<Map<String, Object>, String> {
        public BrokenConstructor() {
            throw new IllegalStateException("missing configuration");
        }

        @Override
        public String handleRequest(Map<String, Object> input, Context context) {
            return "never";
        }
    }

    public static final class StreamEcho implements RequestStreamHandler {
        @Override
        public void handleRequest(InputStream input, OutputStream output, Context context) throws java.io.IOException {
            input.transferTo(output);
        }
    }

    /** A handler with SnapStart hooks: records the order they ran in, and what the environment said during its priming. */
    public static final class Primed implements RequestHandler<Map<String, Object>, String>, org.crac.Resource {
        public static final java.util.List<String> EVENTS = new java.util.concurrent.CopyOnWriteArrayList<>();

        public Primed() {
            EVENTS.add("constructed");
        }

        @Override
        public void beforeCheckpoint(org.crac.Context<? extends org.crac.Resource> context) {
            EVENTS.add("beforeCheckpoint " + FunctionEnvironment.get("GREETING").orElse("-"));
        }

        @Override
        public void afterRestore(org.crac.Context<? extends org.crac.Resource> context) {
            EVENTS.add("afterRestore");
        }

        @Override
        public String handleRequest(Map<String, Object> input, Context context) {
            EVENTS.add("invoked");
            return "ok";
        }
    }

    /** A handler whose priming fails, as a publish whose hooks throw fails. */
    public static final class PrimingFails implements RequestHandler<Map<String, Object>, String>, org.crac.Resource {
        @Override
        public void beforeCheckpoint(org.crac.Context<? extends org.crac.Resource> context) throws org.crac.CheckpointException {
            throw new org.crac.CheckpointException();
        }

        @Override
        public void afterRestore(org.crac.Context<? extends org.crac.Resource> context) {
        }

        @Override
        public String handleRequest(Map<String, Object> input, Context context) {
            return "ok";
        }
    }
}
