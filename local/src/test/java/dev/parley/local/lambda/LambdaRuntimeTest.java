package dev.parley.local.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.testsupport.StdoutCapture;
import dev.parley.functions.manifest.FunctionSpec;
import dev.parley.functions.manifest.Trigger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LambdaRuntimeTest {
    private final LambdaRuntime runtime = new LambdaRuntime();

    private static FunctionSpec spec(String name, Class<?> handler, Duration timeout, Map<String, String> environment) {
        return new FunctionSpec(name, handler.getName(), 256, timeout, environment, new Trigger.WebSocketRoute(name), Map.of(), false);
    }

    @AfterEach
    void close() {
        runtime.close();
    }

    @Test
    void eventsBecomeTheHandlersTypeAndTheEnvironmentIsTheFunctions() {
        runtime.deploy(spec("echo", TestHandlers.Echo.class, Duration.ofSeconds(3), Map.of("GREETING", "hello")), 5);
        String result = runtime.invoke("echo", "{\"requestContext\":{\"routeKey\":\"ping\",\"connectionId\":\"abc=\"},\"body\":\"{\\\"type\\\":\\\"ping\\\"}\",\"isBase64Encoded\":false}");
        assertThat(result).contains("\"statusCode\":200").contains("hello|ping|{\\\"type\\\":\\\"ping\\\"}|echo|true");
    }

    @Test
    void anEnvironmentIsBuiltOnceAndReusedWhileWarm() {
        int before = TestHandlers.Echo.CONSTRUCTED.get();
        runtime.deploy(spec("warm", TestHandlers.Echo.class, Duration.ofSeconds(3), Map.of()), 5);
        for (int i = 0; i < 5; i++) {
            runtime.invoke("warm", "{\"requestContext\":{\"routeKey\":\"x\"}}");
        }
        FunctionMetrics metrics = runtime.metrics("warm");
        assertThat(metrics.invocations()).isEqualTo(5);
        assertThat(metrics.coldStarts()).isEqualTo(1);
        assertThat(metrics.environments()).isEqualTo(1);
        assertThat(metrics.coldStartTime()).isPositive();
        assertThat(TestHandlers.Echo.CONSTRUCTED.get() - before).isEqualTo(1);
    }

    @Test
    void aSnapStartDeployInitializesOneEnvironmentRunsItsHooksAndKeepsItWarm() {
        TestHandlers.Primed.EVENTS.clear();
        runtime.deploy(spec("primed", TestHandlers.Primed.class, Duration.ofSeconds(3), Map.of("GREETING", "hi")), 5, true);
        assertThat(TestHandlers.Primed.EVENTS).as("at deploy, in the function's environment")
                .containsExactly("constructed", "beforeCheckpoint hi", "afterRestore");
        runtime.invoke("primed", "{}");
        assertThat(TestHandlers.Primed.EVENTS).as("the primed environment serves the first request").endsWith("afterRestore", "invoked");
        FunctionMetrics metrics = runtime.metrics("primed");
        assertThat(metrics.coldStarts()).isEqualTo(1);
        assertThat(metrics.primingTime()).isPositive();

        runtime.deploy(spec("unprimed", TestHandlers.Primed.class, Duration.ofSeconds(3), Map.of()), 5);
        assertThat(runtime.metrics("unprimed").coldStarts()).as("without SnapStart, nothing runs before the first request").isZero();
        assertThat(runtime.metrics("unprimed").primingTime()).isZero();

        assertThatThrownBy(() -> runtime.deploy(spec("broken", TestHandlers.PrimingFails.class, Duration.ofSeconds(3), Map.of()), 5, true))
                .hasMessageContaining("the SnapStart hooks of broken failed");
        assertThat(runtime.isDeployed("broken")).isFalse();
    }

    @Test
    void aHandlerErrorIsReportedWithItsTypeCountedAndWrittenToTheLog() throws Exception {
        runtime.deploy(spec("failing", TestHandlers.Failing.class, Duration.ofSeconds(3), Map.of()), 5);
        StdoutCapture log = StdoutCapture.during(() -> assertThatThrownBy(() -> runtime.invoke("failing", "{\"why\":\"test\"}"))
                .isInstanceOfSatisfying(FunctionError.class, e -> {
                    assertThat(e.kind()).isEqualTo(FunctionError.Kind.HANDLER_ERROR);
                    assertThat(e.errorType()).isEqualTo("java.lang.IllegalStateException");
                    assertThat(e.getMessage()).contains("boom: test");
                }));
        assertThat(runtime.metrics("failing").errors()).isEqualTo(1);
        // As Lambda writes an unhandled error to the function's log, the local runtime writes it to stdout.
        assertThat(log.jsonLines()).hasSize(1);
        JsonNode line = log.jsonLines().getFirst();
        assertThat(line.path("level").asText()).isEqualTo("ERROR");
        assertThat(line.path("function_name").asText()).isEqualTo("failing");
        assertThat(line.path("errorType").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(line.path("errorMessage").asText()).contains("boom: test");
        assertThat(line.path("stackTrace").get(0).asText()).contains("TestHandlers$Failing");
    }

    @Test
    void theTimeoutIsEnforcedAndTheEnvironmentDiscarded() {
        runtime.deploy(spec("slow", TestHandlers.Slow.class, Duration.ofMillis(200), Map.of()), 5);
        assertThat(runtime.invoke("slow", "{\"sleepMillis\":10}")).isEqualTo("\"done\"");
        long started = System.nanoTime();
        assertThatThrownBy(() -> runtime.invoke("slow", "{\"sleepMillis\":5000}"))
                .isInstanceOfSatisfying(FunctionError.class, e -> {
                    assertThat(e.kind()).isEqualTo(FunctionError.Kind.TIMEOUT);
                    assertThat(e.getMessage()).contains("Task timed out after 0.20 seconds");
                });
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
        FunctionMetrics metrics = runtime.metrics("slow");
        assertThat(metrics.timeouts()).isEqualTo(1);
        assertThat(metrics.environments()).isZero();
        runtime.invoke("slow", "{\"sleepMillis\":1}");
        assertThat(runtime.metrics("slow").coldStarts()).as("a new environment after the timed-out one").isEqualTo(2);
    }

    @Test
    void anEnvironmentKilledMidInvocationIsReportedAsItsProcessExitingEvenWhenItsThreadHangsPastTheTimeout() {
        KillSwitch kills = new KillSwitch();
        try (LambdaRuntime killing = new LambdaRuntime(kills)) {
            TestHandlers.killSwitch = kills;
            killing.deploy(spec("hangs", TestHandlers.KilledThenHangs.class, Duration.ofMillis(300), Map.of()), 5);
            kills.arm("hangs", new KillSwitch.AfterPosts(1));
            assertThatThrownBy(() -> killing.invoke("hangs", "{}")).isInstanceOfSatisfying(FunctionError.class, e -> {
                assertThat(e.errorType()).isEqualTo("Runtime.ExitError");
                assertThat(e.kind()).isEqualTo(FunctionError.Kind.HANDLER_ERROR);
            });
            assertThat(kills.kills()).isEqualTo(1);
            assertThat(killing.metrics("hangs").timeouts()).as("not a timeout").isZero();
        }
    }

    @Test
    void beyondTheConcurrencyLimitInvocationsAreThrottled() throws Exception {
        runtime.deploy(spec("limited", TestHandlers.Slow.class, Duration.ofSeconds(5), Map.of()), 2);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(pool.submit(() -> {
                    start.await();
                    try {
                        return runtime.invoke("limited", "{\"sleepMillis\":400}");
                    } catch (FunctionError e) {
                        return e.kind().name();
                    }
                }));
            }
            start.countDown();
            long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (runtime.invocationsInFlight() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(runtime.invocationsInFlight()).as("the two admitted, running").isEqualTo(2);
            List<String> outcomes = new ArrayList<>();
            for (Future<String> call : calls) {
                outcomes.add(call.get());
            }
            assertThat(runtime.invocationsInFlight()).isZero();
            assertThat(outcomes).filteredOn("\"done\""::equals).hasSize(2);
            assertThat(outcomes).filteredOn("THROTTLED"::equals).hasSize(2);
            assertThat(runtime.metrics("limited").throttles()).isEqualTo(2);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aConstructorFailureIsAnInitErrorAndBadDeploymentsAreRefused() {
        runtime.deploy(spec("broken", TestHandlers.BrokenConstructor.class, Duration.ofSeconds(1), Map.of()), 1);
        assertThatThrownBy(() -> runtime.invoke("broken", "{}"))
                .isInstanceOfSatisfying(FunctionError.class, e -> {
                    assertThat(e.kind()).isEqualTo(FunctionError.Kind.INIT_ERROR);
                    assertThat(e.getMessage()).contains("missing configuration");
                });
        assertThatThrownBy(() -> runtime.deploy(new FunctionSpec("ghost", "no.such.Handler", 256, Duration.ofSeconds(1), Map.of(),
                new Trigger.WebSocketRoute("g"), Map.of(), false), 1)).hasMessageContaining("is not on the classpath");
        assertThatThrownBy(() -> runtime.deploy(spec("notahandler", String.class, Duration.ofSeconds(1), Map.of()), 1))
                .hasMessageContaining("implements neither RequestHandler nor RequestStreamHandler");
        assertThatThrownBy(() -> runtime.invoke("nothing", "{}")).hasMessageContaining("no function nothing");
    }

    @Test
    void streamHandlersGetTheRawEvent() {
        runtime.deploy(spec("stream", TestHandlers.StreamEcho.class, Duration.ofSeconds(1), Map.of()), 1);
        assertThat(runtime.invoke("stream", "{\"a\":1}")).isEqualTo("{\"a\":1}");
    }
}
