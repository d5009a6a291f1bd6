package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import dev.parley.functions.config.PublishSettings;
import dev.parley.functions.observability.Telemetry;
import dev.parley.functions.usecase.TopicSubscribers;
import dev.parley.model.InvalidFieldException;
import dev.parley.model.TopicKey;
import dev.parley.protocol.TopicSubscribersRequest;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code PUT} and {@code DELETE /topics/{key}/subscribers} ({@link HttpApiCalls}): subscribes or unsubscribes up to 1000 users,
 * for a publisher whose {@code topics} grant names the topic. Answers 200 with how many users changed and how many the topic
 * has; 400 naming the field, 403, or 503 with {@code Retry-After} (the same call again is harmless).
 */
public final class TopicsHandler extends PrimedHandler implements RequestHandler<APIGatewayV2HTTPEvent, APIGatewayV2HTTPResponse> {
    private static final Logger LOG = LoggerFactory.getLogger(TopicsHandler.class);

    private final TopicSubscribers subscribers;
    private final PublishSettings settings;

    public TopicsHandler() {
        this(Wiring.fromEnvironment(), PublishSettings.fromEnvironment());
    }

    private TopicsHandler(Wiring wiring, PublishSettings settings) {
        this(wiring.topicSubscribers(), settings);
        primeBeforeSnapshot(() -> TopicSubscribersRequest.parse("{\"user_ids\":[\"" + NOBODY.value() + "\"]}"));
    }

    TopicsHandler(TopicSubscribers subscribers, PublishSettings settings) {
        this.subscribers = subscribers;
        this.settings = settings;
    }

    @Override
    public APIGatewayV2HTTPResponse handleRequest(APIGatewayV2HTTPEvent event, Context context) {
        return Telemetry.invocation(context, () -> HttpApiCalls.answer(event, settings, "changing the topic's subscribers",
                "call again: users already changed are skipped", publisher -> {
                    TopicKey topic = topic(event);
                    TopicSubscribersRequest request = TopicSubscribersRequest.parse(HttpApiCalls.body(event));
                    boolean subscribe = "PUT".equals(method(event));
                    TopicSubscribers.Changed changed = subscribe ? subscribers.subscribe(publisher, topic, request)
                            : subscribers.unsubscribe(publisher, topic, request);
                    LOG.info("{} {} of {} users {} topic {} for {}", subscribe ? "subscribed" : "unsubscribed", changed.changed(),
                            request.userIds().size(), subscribe ? "to" : "from", topic, publisher.principal());
                    return HttpApiCalls.answer(200, HttpApiCalls.JSON.createObjectNode().put("topic", topic.value())
                            .put(subscribe ? "subscribed" : "unsubscribed", changed.changed()).put("subscribers", changed.subscribers()));
                }));
    }

    private static String method(APIGatewayV2HTTPEvent event) {
        return Optional.ofNullable(event.getRequestContext()).map(APIGatewayV2HTTPEvent.RequestContext::getHttp)
                .map(APIGatewayV2HTTPEvent.RequestContext.Http::getMethod)
                .orElseGet(() -> Optional.ofNullable(event.getRouteKey()).map(route -> route.split(" ", 2)[0]).orElse(""));
    }

    /** The path's {@code {key}}: API Gateway gives it decoded in the path parameters. */
    private static TopicKey topic(APIGatewayV2HTTPEvent event) {
        String key = Optional.ofNullable(event.getPathParameters()).map(parameters -> parameters.get("key"))
                .orElseThrow(() -> new InvalidFieldException("topic", "is required: the path is /topics/{key}/subscribers"));
        return TopicKey.of(key);
    }
}
