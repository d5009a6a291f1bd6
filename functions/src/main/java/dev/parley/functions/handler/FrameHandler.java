package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2WebSocketResponse;
import dev.parley.functions.observability.LogFields;
import dev.parley.functions.observability.LogSampling;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.config.ParleyConfig;
import dev.parley.functions.retry.Backoff;
import dev.parley.functions.usecase.Caller;
import dev.parley.functions.usecase.SendMessage;
import dev.parley.model.DevicesChangedException;
import dev.parley.model.DomainException;
import dev.parley.model.RateLimitedException;
import dev.parley.model.ErrorCode;
import dev.parley.model.Sha256;
import dev.parley.ports.RequestRecords;
import dev.parley.ports.UnavailableException;
import dev.parley.protocol.AckStatus;
import dev.parley.protocol.ClientFrame;
import dev.parley.protocol.DecodeResult;
import dev.parley.protocol.FrameCodec;
import dev.parley.protocol.ServerFrame;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.lambda.powertools.logging.argument.StructuredArguments;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * Every client frame's route (and {@code $default}): decodes the frame, runs its use case
 * ({@link FrameRoutes}), and answers with the resulting frame, or with an {@code error} frame naming
 * the code, the problem and the frame's {@code id} or {@code type}: the use case's refusal, or
 * {@code rate_limited} with a wait when a store could not serve it now. The connection stays open
 * whatever the frame was.
 */
public final class FrameHandler extends PrimedHandler implements RequestHandler<APIGatewayV2WebSocketEvent, APIGatewayV2WebSocketResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(FrameHandler.class);
    private final FrameCodec codec = new FrameCodec();
    /** A send as clients write it, for priming the codec's paths. */
    private static final String SAMPLE_SEND = "{\"type\":\"message.send\",\"id\":\"3f0c6a52-8f6e-4a53-9f43-6a1d2b7c9e10\","
            + "\"conversation_id\":\"d:parley-priming:parley-priming-2\",\"content\":{\"type\":\"text\",\"body\":\"priming\"}}";
    /** How long a repeat waits for the answer of its first, still running. */
    private static final java.time.Duration IN_PROGRESS_WAIT = java.time.Duration.ofMillis(500);
    private final FrameRoutes routes;
    private final RequestRecords requests;
    private final java.time.Clock clock;

    public FrameHandler() {
        this(Wiring.fromEnvironment());
    }

    private FrameHandler(Wiring wiring) {
        this.requests = wiring.requestRecords();
        this.clock = wiring.clock;
        this.routes = FrameRoutes.over(wiring.conversations(), wiring.messages(), wiring.connections(), wiring.delivery(), codec, wiring.clock,
                Backoff.DYNAMODB, wiring.fastPath(), wiring.devices(), wiring.presenceSubscriptions(), wiring.inbox(), ParleyConfig.connectionLease(),
                ParleyConfig.typingInterval(), wiring.notificationPushSettings(), wiring.frameLimits(), wiring.keyDirectory(), wiring.media(),
                wiring.topics(), wiring.topicFeeds(), wiring.topicFeedPulls(), wiring.reactions(),
                dev.parley.functions.config.ChangeSettings.fromEnvironment());
        primeBeforeSnapshot(() -> {
            if (codec.decodeClient(SAMPLE_SEND) instanceof DecodeResult.Decoded<ClientFrame> decoded
                    && decoded.frame() instanceof ClientFrame.MessageSend send) {
                codec.encodeAnswer(new ServerFrame.MessageAck(send.id(), send.conversationId(), 1, 0, AckStatus.SENT), decoded.ref());
            }
            primeDelivery(wiring, codec);
            wiring.conversations().summary(NO_CONVERSATION);
            wiring.messages().after(NO_CONVERSATION, 0, 1);
        });
    }

    FrameHandler(FrameRoutes routes, RequestRecords requests, java.time.Clock clock) {
        this.routes = routes;
        this.requests = requests;
        this.clock = clock;
    }

    @Override
    public APIGatewayV2WebSocketResponse handleRequest(APIGatewayV2WebSocketEvent event, Context context) {
        return Telemetry.invocation(context, () -> handle(event));
    }

    private APIGatewayV2WebSocketResponse handle(APIGatewayV2WebSocketEvent event) {
        MDC.put(LogFields.CONNECTION, event.getRequestContext().getConnectionId());
        String body = event.getBody();
        if (event.isIsBase64Encoded()) {
            return respond(new ServerFrame.Error(ErrorCode.BAD_REQUEST, "frames are UTF-8 JSON text, not binary", Optional.empty()));
        }
        DecodeResult<ClientFrame> decoded = codec.decodeClient(body);
        if (decoded instanceof DecodeResult.Rejected<ClientFrame> rejected) {
            return respond(rejected.error());
        }
        ClientFrame frame = ((DecodeResult.Decoded<ClientFrame>) decoded).frame();
        // Protocol 1.1: the answer names the request by its id (null when it had none); an error by its id, else its type.
        Optional<String> id = ((DecodeResult.Decoded<ClientFrame>) decoded).ref();
        Optional<String> errorRef = Optional.of(id.orElse(frame.type()));
        Caller caller = AuthorizerContext.caller(event);
        if (frame instanceof ClientFrame.Appending appending) {
            MDC.put(LogFields.CONVERSATION, appending.conversationId().value());
        }
        // A state-changing frame with an id is answered once: the same id again gets the first answer (protocol 1.1).
        Optional<String> recorded = id.filter(present -> frame.effect() == ClientFrame.Effect.RECORDED);
        boolean claimed = false;
        try {
            routes.admit(caller, frame);
            if (frame instanceof ClientFrame.Appending appending) {
                SendMessage.Sent sent = routes.append(caller, appending);
                record(sent);
                return sent.ackPosted() ? none() : respond(sent.ack(), id);
            }
            if (recorded.isPresent()) {
                RequestRecords.Claim claim = requests.claim(caller.user(), recorded.get(), Sha256.hex(codec.encodeRequest(frame, recorded.get())),
                        clock.instant());
                switch (claim) {
                    case RequestRecords.Claim.Answered answered -> {
                        return text(answered.answer());
                    }
                    case RequestRecords.Claim.InProgress ignored -> throw new RateLimitedException(
                            "a frame with this id is being handled; send it again after retry_after_ms for its answer", IN_PROGRESS_WAIT);
                    case RequestRecords.Claim.OtherFrame ignored -> throw new DomainException(ErrorCode.CONFLICT, "field 'id' "
                            + recorded.get() + " was used for another frame within the last day; every request needs an id of its own");
                    case RequestRecords.Claim.Fresh ignored -> claimed = true;
                }
            }
            String answer = routes.answer(caller, frame, id).map(frameAnswer -> codec.encodeAnswer(frameAnswer, id)).orElse("");
            if (claimed) {
                requests.answer(caller.user(), recorded.get(), answer);
                claimed = false;
            }
            return text(answer);
        } catch (RateLimitedException e) {
            Telemetry.metrics(metrics -> metrics.addMetric(Telemetry.FRAMES_LIMITED, 1, MetricUnit.COUNT));
            return respond(new ServerFrame.Error(e.code(), e.getMessage(), errorRef, OptionalLong.of(e.retryAfter().toMillis())));
        } catch (DevicesChangedException e) {
            return respond(ServerFrame.Error.devicesChanged(e, errorRef));
        } catch (DomainException e) {
            return respond(new ServerFrame.Error(e.code(), e.getMessage(), errorRef));
        } catch (UnavailableException e) {
            LOG.warn("frame deferred", StructuredArguments.entry("type", frame.type()),
                    StructuredArguments.entry("retry_after_ms", e.retryAfter().toMillis()), e);
            Telemetry.metrics(metrics -> metrics.addMetric(Telemetry.FRAMES_DEFERRED, 1, MetricUnit.COUNT));
            return respond(new ServerFrame.Error(ErrorCode.RATE_LIMITED, "the server is busy; send the frame again after retry_after_ms",
                    errorRef, OptionalLong.of(e.retryAfter().toMillis())));
        } catch (RuntimeException e) {
            LOG.error("frame failed", StructuredArguments.entry("type", frame.type()), e);
            return respond(new ServerFrame.Error(ErrorCode.INTERNAL, "the server failed to handle the frame; retrying may help",
                    errorRef));
        } finally {
            if (claimed) {
                // Refused or failed: its id may come again and run afresh.
                release(caller, recorded.get());
            }
        }
    }

    private void release(Caller caller, String id) {
        try {
            requests.release(caller.user(), id);
        } catch (RuntimeException e) {
            // The claim's lease runs out instead, and the same frame may then claim the id again.
            LOG.warn("releasing a request id failed", e);
        }
    }

    /**
     * Logs and counts a send's outcome: accepted with its seq (and what its fast path did), for the
     * sampled messages (LogSampling), or a duplicate of an earlier one, always; counted always.
     */
    private static void record(SendMessage.Sent sent) {
        ServerFrame.MessageAck ack = sent.ack();
        MDC.put(LogFields.SEQ, Long.toString(ack.seq()));
        boolean duplicate = ack.status() == AckStatus.DUPLICATE;
        if (duplicate) {
            LOG.info("duplicate send", StructuredArguments.entry("client_message_id", ack.id().toString()));
        } else if (LogSampling.sampled(ack.id())) {
            if (sent.fastDelivery().isPresent()) {
                SendMessage.FastDelivery fast = sent.fastDelivery().get();
                LOG.info("message accepted", StructuredArguments.entry("client_message_id", ack.id().toString()),
                        StructuredArguments.entry("fast_posts", fast.posts()), StructuredArguments.entry("gone", fast.gone()),
                        StructuredArguments.entry("fast_path_complete", fast.delivered()), StructuredArguments.entry("post_ms", Math.round(fast.postMillis())));
            } else {
                LOG.info("message accepted", StructuredArguments.entry("client_message_id", ack.id().toString()));
            }
        }
        Telemetry.metrics(metrics -> {
            metrics.addMetric(duplicate ? Telemetry.DUPLICATES : Telemetry.MESSAGES_ACCEPTED, 1, MetricUnit.COUNT);
            sent.fastDelivery().ifPresent(fast -> {
                metrics.addMetric(Telemetry.POSTS, fast.posts(), MetricUnit.COUNT);
                metrics.addMetric(fast.delivered() ? Telemetry.FAST_PATH_COMPLETE : Telemetry.FAST_PATH_INCOMPLETE, 1, MetricUnit.COUNT);
                if (fast.posts() > 0) {
                    metrics.addMetric(Telemetry.FAST_PATH_POST_LATENCY, fast.postMillis(), MetricUnit.MILLISECONDS);
                }
            });
        });
    }

    /** A frame answering the request whose id is {@code ref} (an error keeps its own ref). */
    private APIGatewayV2WebSocketResponse respond(ServerFrame frame, Optional<String> ref) {
        APIGatewayV2WebSocketResponse response = new APIGatewayV2WebSocketResponse();
        response.setStatusCode(200);
        response.setBody(codec.encodeAnswer(frame, ref));
        return response;
    }

    private APIGatewayV2WebSocketResponse respond(ServerFrame.Error error) {
        return respond(error, Optional.empty());
    }

    private static APIGatewayV2WebSocketResponse none() {
        return text("");
    }

    /** An answer already encoded; none when empty. */
    private static APIGatewayV2WebSocketResponse text(String answer) {
        APIGatewayV2WebSocketResponse response = new APIGatewayV2WebSocketResponse();
        response.setStatusCode(200);
        if (!answer.isEmpty()) {
            response.setBody(answer);
        }
        return response;
    }
}
