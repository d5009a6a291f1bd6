package dev.parley.local.lambda;

import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.amazonaws.services.lambda.runtime.serialization.PojoSerializer;
import com.amazonaws.services.lambda.runtime.serialization.events.LambdaEventSerializers;
import com.amazonaws.services.lambda.runtime.serialization.factories.JacksonFactory;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.runtime.FunctionEnvironment;
import dev.parley.local.dynamodb.server.Json;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import dev.parley.functions.config.ParleyConfig;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the manifest's handler classes as Lambda does: one handler instance per execution
 * environment (built on a cold start, which is counted and timed), reused while warm; the
 * function's environment variables around construction and every invocation; a {@code Context};
 * the timeout enforced (a timed-out environment is thrown away); and a concurrency limit beyond
 * which invocations are throttled. Events arrive as JSON and are turned into the handler's input
 * type by the Lambda Java runtime's own serializers.
 */
public final class LambdaRuntime implements AutoCloseable {
    private final Map<String, Deployed> functions = new ConcurrentHashMap<>();
    /** Invocations run on pooled threads, so a timed-out handler can be abandoned while the caller returns. */
    private final ExecutorService threads = Executors.newCachedThreadPool(Thread.ofPlatform().name("lambda-", 0).daemon(true).factory());
    /** Building a serializer is costly (it configures an ObjectMapper); one per type is kept. */
    private static final Map<Class<?>, PojoSerializer<Object>> SERIALIZERS = new ConcurrentHashMap<>();
    private final KillSwitch killSwitch;

    public LambdaRuntime() {
        this(new KillSwitch());
    }

    /** @param killSwitch kills invocations at a point a test arms; the emulators share it */
    public LambdaRuntime(KillSwitch killSwitch) {
        this.killSwitch = killSwitch;
    }

    public KillSwitch killSwitch() {
        return killSwitch;
    }

    /** Deploys a function with a concurrency limit (Lambda's reserved concurrency); environments start on first use. */
    public void deploy(FunctionSpec spec, int concurrencyLimit) {
        deploy(spec, concurrencyLimit, false);
    }

    /**
     * Deploys a function. With {@code snapStart}, as Lambda publishes a SnapStart version: one execution
     * environment is initialized now, the CRaC hooks of its handler run (when the handler is an
     * {@code org.crac.Resource}: its priming, before the snapshot, then after the restore), and it is
     * kept as the first warm environment. A hook that fails fails the deploy, as it fails the publish.
     */
    public void deploy(FunctionSpec spec, int concurrencyLimit, boolean snapStart) {
        if (concurrencyLimit < 1) {
            throw new IllegalArgumentException("the concurrency limit of " + spec.name() + " must be at least 1");
        }
        Class<?> handlerClass;
        try {
            handlerClass = Class.forName(spec.handler(), false, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("the handler class " + spec.handler() + " of " + spec.name() + " is not on the classpath", e);
        }
        if (!RequestHandler.class.isAssignableFrom(handlerClass) && !RequestStreamHandler.class.isAssignableFrom(handlerClass)) {
            throw new IllegalArgumentException(spec.handler() + " implements neither RequestHandler nor RequestStreamHandler");
        }
        Deployed deployed = new Deployed(spec, handlerClass, concurrencyLimit);
        if (functions.putIfAbsent(spec.name(), deployed) != null) {
            throw new IllegalArgumentException("function " + spec.name() + " is already deployed");
        }
        if (snapStart) {
            try {
                deployed.publishSnapshot();
            } catch (RuntimeException e) {
                // No snapshot, no version: the function is not deployed.
                functions.remove(spec.name(), deployed);
                throw e;
            }
        }
    }

    public boolean isDeployed(String function) {
        return functions.containsKey(function);
    }

    private volatile double failureRate;
    private final java.util.Random failures = new java.util.Random(11);
    private final java.util.concurrent.atomic.AtomicLong failuresInjected = new java.util.concurrent.atomic.AtomicLong();

    /**
     * Of every invocation from now on, this share fails before its handler runs (as a function that crashed or timed out
     * does; the chaos soak's Lambda faults); 0 ends them.
     */
    public void failInvocations(double rate) {
        if (rate < 0 || rate > 1) {
            throw new IllegalArgumentException("the failure rate must be 0 to 1, was " + rate);
        }
        this.failureRate = rate;
    }

    /** Invocations failed by {@link #failInvocations} so far. */
    public long failuresInjected() {
        return failuresInjected.get();
    }

    /** Invokes a function synchronously with an event as JSON; returns its result as JSON (null for none). */
    public String invoke(String function, String eventJson) {
        Deployed deployed = functions.get(function);
        if (deployed == null) {
            throw new IllegalArgumentException("no function " + function + " is deployed");
        }
        double rate = failureRate;
        if (rate > 0) {
            boolean fail;
            synchronized (failures) {
                fail = failures.nextDouble() < rate;
            }
            if (fail) {
                failuresInjected.incrementAndGet();
                throw new FunctionError(FunctionError.Kind.HANDLER_ERROR, function, "Parley.InjectedFault", "an injected failure (chaos soak)", null);
            }
        }
        try {
            return deployed.invoke(eventJson);
        } catch (FunctionError e) {
            if (e.kind() != FunctionError.Kind.THROTTLED) {
                report(e);
            }
            throw e;
        }
    }

    /**
     * Writes a failed invocation to stdout, where the functions' own logs go, as Lambda writes an
     * unhandled error to the function's log: otherwise a caller would see only a 500 and no reason.
     */
    private static void report(FunctionError e) {
        var line = Json.NODES.objectNode()
                .put("level", "ERROR").put("function_name", e.function()).put("errorType", e.errorType()).put("errorMessage", e.getMessage());
        var stack = line.putArray("stackTrace");
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        StackTraceElement[] frames = cause.getStackTrace();
        for (int i = 0; i < Math.min(frames.length, 20); i++) {
            stack.add(frames[i].toString());
        }
        System.out.println(line);
    }

    public FunctionMetrics metrics(String function) {
        Deployed deployed = functions.get(function);
        if (deployed == null) {
            throw new IllegalArgumentException("no function " + function + " is deployed");
        }
        return deployed.metrics();
    }

    /** Invocations running now, across every function (the metrics count an invocation when it ends). */
    public int invocationsInFlight() {
        return functions.values().stream().mapToInt(deployed -> deployed.busy.get()).sum();
    }

    public Map<String, FunctionMetrics> allMetrics() {
        Map<String, FunctionMetrics> all = new java.util.TreeMap<>();
        functions.forEach((name, deployed) -> all.put(name, deployed.metrics()));
        return all;
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }

    /** One warm handler instance: Lambda's execution environment. */
    private record Environment(Object handler, String logStream, Map<String, String> variables) {
        /** The environment's own role session, which its SDK clients send as their security token. */
        String session() {
            return variables.get(ParleyConfig.SESSION_TOKEN);
        }
    }

    private final class Deployed {
        private final FunctionSpec spec;
        private final Class<?> handlerClass;
        private final int concurrencyLimit;
        private final Deque<Environment> idle = new ArrayDeque<>();
        private int environments;
        private final AtomicLong invocations = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();
        private final AtomicLong timeouts = new AtomicLong();
        private final AtomicLong throttles = new AtomicLong();
        private final AtomicLong coldStarts = new AtomicLong();
        private final AtomicLong coldStartNanos = new AtomicLong();
        private final AtomicLong totalNanos = new AtomicLong();
        private final AtomicLong maxNanos = new AtomicLong();
        private final AtomicLong primingNanos = new AtomicLong();
        private final AtomicInteger busy = new AtomicInteger();
        private final PojoSerializer<Object> inputSerializer;

        Deployed(FunctionSpec spec, Class<?> handlerClass, int concurrencyLimit) {
            this.spec = spec;
            this.handlerClass = handlerClass;
            this.concurrencyLimit = concurrencyLimit;
            this.inputSerializer = RequestHandler.class.isAssignableFrom(handlerClass) ? serializerFor(inputType(handlerClass)) : null;
        }

        String invoke(String eventJson) {
            Environment environment = acquire();
            long started = System.nanoTime();
            long deadline = started + spec.timeout().toNanos();
            String requestId = UUID.randomUUID().toString();
            boolean keep = true;
            Future<String> result = null;
            java.util.concurrent.atomic.AtomicReference<Thread> running = new java.util.concurrent.atomic.AtomicReference<>();
            try {
                result = threads.submit(() -> {
                    running.set(Thread.currentThread());
                    return FunctionEnvironment.with(environment.variables(),
                            () -> call(environment, eventJson, new LocalContext(spec, requestId, deadline, environment.logStream())));
                });
                ExecutionException failed = null;
                String output = null;
                try {
                    output = result.get(spec.timeout().toNanos(), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    failed = e;
                }
                // A killed invocation's result, or its failure, never reached anyone: its process was gone.
                if (killSwitch.ended(spec.name(), environment.session())) {
                    keep = false;
                    throw killed(requestId);
                }
                if (failed != null) {
                    errors.incrementAndGet();
                    Throwable cause = failed.getCause() instanceof HandlerFailure failure ? failure.getCause() : failed.getCause();
                    throw new FunctionError(FunctionError.Kind.HANDLER_ERROR, spec.name(), cause.getClass().getName(),
                            String.valueOf(cause.getMessage()), cause);
                }
                return output;
            } catch (TimeoutException e) {
                logWhereStuck(requestId, running.get());
                result.cancel(true);
                keep = false;
                // A killed environment's thread may hang on until the timeout; its process died at the kill, and that is what is reported.
                if (killSwitch.ended(spec.name(), environment.session())) {
                    throw killed(requestId);
                }
                timeouts.incrementAndGet();
                errors.incrementAndGet();
                throw new FunctionError(FunctionError.Kind.TIMEOUT, spec.name(), "Sandbox.Timedout",
                        "Task timed out after " + String.format("%.2f", spec.timeout().toMillis() / 1000.0) + " seconds", null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                keep = false;
                throw new FunctionError(FunctionError.Kind.HANDLER_ERROR, spec.name(), "Interrupted", "the invocation was interrupted", e);
            } finally {
                long elapsed = System.nanoTime() - started;
                invocations.incrementAndGet();
                totalNanos.addAndGet(elapsed);
                maxNanos.accumulateAndGet(elapsed, Math::max);
                release(environment, keep);
            }
        }

        /**
         * Lambda says only that a task timed out; locally the handler's thread can be read, and where it waited is what a
         * developer needs to find the call that hung.
         */
        private void logWhereStuck(String requestId, Thread handlerThread) {
            if (handlerThread == null) {
                return;
            }
            StringBuilder where = new StringBuilder(spec.name()).append(" invocation ").append(requestId).append(" timed out after ")
                    .append(spec.timeout().toMillis()).append(" ms, waiting at:");
            StackTraceElement[] frames = handlerThread.getStackTrace();
            for (int i = 0; i < Math.min(40, frames.length); i++) {
                where.append("\n\tat ").append(frames[i]);
            }
            // A handler that waits on its own threads (the fan-out's virtual threads) is stuck where they are: every thread, virtual
            // ones too, goes to a dump file.
            try {
                java.nio.file.Path dump = java.nio.file.Files.createTempFile("parley-" + spec.name() + "-timeout-", ".txt");
                java.nio.file.Files.delete(dump);
                java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class)
                        .dumpThreads(dump.toString(), com.sun.management.HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
                where.append("\nevery thread: ").append(dump);
            } catch (IOException | RuntimeException e) {
                where.append("\n(no thread dump: ").append(e).append(')');
            }
            System.getLogger(LambdaRuntime.class.getName()).log(System.Logger.Level.WARNING, where.toString());
        }

        /** Initializes an environment, runs its handler's CRaC hooks, and keeps it warm: SnapStart's publish, locally. */
        void publishSnapshot() {
            Environment environment = acquire();
            boolean keep = false;
            try {
                if (environment.handler() instanceof org.crac.Resource hooks) {
                    long started = System.nanoTime();
                    FunctionEnvironment.with(environment.variables(), () -> {
                        try {
                            hooks.beforeCheckpoint(null);
                            hooks.afterRestore(null);
                        } catch (Exception e) {
                            throw new IllegalStateException("the SnapStart hooks of " + spec.name() + " failed: " + e.getMessage(), e);
                        }
                        return null;
                    });
                    primingNanos.addAndGet(System.nanoTime() - started);
                }
                keep = true;
            } finally {
                release(environment, keep);
            }
        }

        /** What Lambda reports for an invocation whose runtime process died. */
        private FunctionError killed(String requestId) {
            errors.incrementAndGet();
            return new FunctionError(FunctionError.Kind.HANDLER_ERROR, spec.name(), "Runtime.ExitError",
                    "RequestId: " + requestId + " Error: Runtime exited with error: signal: killed", null);
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private String call(Environment environment, String eventJson, LocalContext context) {
            try {
                if (environment.handler() instanceof RequestStreamHandler stream) {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    stream.handleRequest(new ByteArrayInputStream(eventJson.getBytes(StandardCharsets.UTF_8)), out, context);
                    return out.size() == 0 ? null : out.toString(StandardCharsets.UTF_8);
                }
                Object input = inputSerializer.fromJson(eventJson);
                Object output = ((RequestHandler) environment.handler()).handleRequest(input, context);
                if (output == null) {
                    return null;
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                serializerFor(output.getClass()).toJson(output, out);
                return out.toString(StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new HandlerFailure(e);
            } catch (RuntimeException | Error e) {
                throw new HandlerFailure(e);
            }
        }

        private Environment acquire() {
            synchronized (this) {
                Environment warm = idle.pollFirst();
                if (warm != null) {
                    busy.incrementAndGet();
                    return warm;
                }
                if (busy.get() >= concurrencyLimit) {
                    throttles.incrementAndGet();
                    throw new FunctionError(FunctionError.Kind.THROTTLED, spec.name(), "TooManyRequestsException",
                            "Rate Exceeded. (the concurrency limit of " + concurrencyLimit + " is reached)", null);
                }
                busy.incrementAndGet();
                environments++;
            }
            long started = System.nanoTime();
            try {
                // Each environment its own session, as each of Lambda's gets its own role session: the kill
                // switch tells a killed environment's calls from its siblings' by it.
                String session = UUID.randomUUID().toString().replace("-", "");
                Map<String, String> variables = new HashMap<>(spec.environment());
                variables.put(ParleyConfig.SESSION_TOKEN, session);
                Object handler = FunctionEnvironment.with(variables, this::construct);
                coldStarts.incrementAndGet();
                coldStartNanos.addAndGet(System.nanoTime() - started);
                return new Environment(handler, java.time.LocalDate.now() + "/[$LATEST]" + session, Map.copyOf(variables));
            } catch (RuntimeException e) {
                synchronized (this) {
                    busy.decrementAndGet();
                    environments--;
                }
                errors.incrementAndGet();
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                throw new FunctionError(FunctionError.Kind.INIT_ERROR, spec.name(), "Runtime.InitError",
                        "the handler " + spec.handler() + " could not be built: " + cause, cause);
            }
        }

        private Object construct() {
            try {
                return handlerClass.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e.getCause() != null ? e.getCause() : e);
            }
        }

        private synchronized void release(Environment environment, boolean keep) {
            busy.decrementAndGet();
            if (keep) {
                idle.addFirst(environment);
            } else {
                environments--;
            }
        }

        synchronized FunctionMetrics metrics() {
            return new FunctionMetrics(invocations.get(), errors.get(), timeouts.get(), throttles.get(), coldStarts.get(),
                    Duration.ofNanos(coldStartNanos.get()), Duration.ofNanos(totalNanos.get()), Duration.ofNanos(maxNanos.get()), environments,
                    Duration.ofNanos(primingNanos.get()));
        }
    }

    /** Carries a handler's own exception out of the invocation thread. */
    private static final class HandlerFailure extends RuntimeException {
        HandlerFailure(Throwable cause) {
            super(cause);
        }
    }

    /** The input type of a {@code RequestHandler<I, O>}, found on the class or its superclasses. */
    static Class<?> inputType(Class<?> handlerClass) {
        for (Class<?> type = handlerClass; type != null && type != Object.class; type = type.getSuperclass()) {
            for (Type implemented : type.getGenericInterfaces()) {
                if (implemented instanceof ParameterizedType parameterized && parameterized.getRawType() == RequestHandler.class) {
                    Type input = parameterized.getActualTypeArguments()[0];
                    if (input instanceof Class<?> cls) {
                        return cls;
                    }
                    if (input instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw) {
                        return raw;
                    }
                }
            }
        }
        return Object.class;
    }

    static PojoSerializer<Object> serializerFor(Class<?> type) {
        return SERIALIZERS.computeIfAbsent(type, LambdaRuntime::newSerializer);
    }

    @SuppressWarnings("unchecked")
    private static PojoSerializer<Object> newSerializer(Class<?> type) {
        if (LambdaEventSerializers.isLambdaSupportedEvent(type.getName())) {
            return (PojoSerializer<Object>) LambdaEventSerializers.serializerFor(type, type.getClassLoader());
        }
        return (PojoSerializer<Object>) JacksonFactory.getInstance().getSerializer(type);
    }
}
