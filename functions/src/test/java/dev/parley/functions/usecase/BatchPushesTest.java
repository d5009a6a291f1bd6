package dev.parley.functions.usecase;

import static dev.parley.functions.usecase.Fixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.model.ClientMessageId;
import dev.parley.model.Content;
import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.Message;
import dev.parley.ports.PushDevices.PushDevice;
import dev.parley.ports.PushNotifier;
import dev.parley.protocol.PushPlatform;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A batch's pushes: bounded in time, and never left holding what the next batch needs. */
class BatchPushesTest {
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    private static Message message(String conversation) {
        return new Message(ClientMessageId.random(), ConversationId.of(conversation), 1, ALICE, DeviceId.DEFAULT, Content.text("hi"), 0);
    }

    private static List<PushNotifier.Target> someone() {
        return List.of(new PushNotifier.Target(new PushDevice(Fixture.BOB, DeviceId.DEFAULT, PushPlatform.FCM, "t", "e"), OptionalLong.empty(),
                List.of()));
    }

    @Test
    void aPushStillRunningAtTheDeadlineIsCancelledAndGivesItsSlotBack() throws Exception {
        Semaphore slots = new Semaphore(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        PushNotifier hanging = (message, targets) -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        };
        BatchPushes stuck = new BatchPushes(hanging, threads, slots, Duration.ofMillis(200));
        stuck.add(message("g:one"), someone());
        long started = System.nanoTime();
        stuck.run();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the batch waited for the deadline only").isLessThan(Duration.ofSeconds(5));
        assertThat(interrupted.await(5, TimeUnit.SECONDS)).as("the push was cancelled").isTrue();

        AtomicInteger pushed = new AtomicInteger();
        BatchPushes next = new BatchPushes((message, targets) -> pushed.incrementAndGet(), threads, slots, Duration.ofSeconds(5));
        next.add(message("g:two"), someone());
        next.run();
        assertThat(pushed).as("the next batch found its slot free").hasValue(1);
    }

    @Test
    void aBatchWithNoTargetsPushesNothing() {
        AtomicInteger pushed = new AtomicInteger();
        BatchPushes none = new BatchPushes((message, targets) -> pushed.incrementAndGet(), threads, new Semaphore(1), Duration.ofSeconds(1));
        none.add(message("g:one"), List.of());
        none.run();
        assertThat(pushed).hasValue(0);
    }
}
