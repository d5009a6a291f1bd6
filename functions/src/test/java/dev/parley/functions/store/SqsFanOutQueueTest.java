package dev.parley.functions.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.model.NotificationId;
import dev.parley.model.UserId;
import dev.parley.ports.FanOutQueue;
import dev.parley.protocol.PublishRequest;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Fan-out work written as a queue message and read back: the same work; anything else is refused, not half read. */
class SqsFanOutQueueTest {
    private static final NotificationId ID = NotificationId.at(1_700_000_000_000L, new Random(4));
    private static final PublishRequest GOAL = PublishRequest.parse("{\"topic\":\"match:final\",\"category\":\"goals\",\"content\":{\"title\":\"Goal!\","
            + "\"body\":\"1-0 \\u00e9\\\"quoted\\\"\",\"data\":{\"minute\":17,\"scorer\":{\"name\":\"N\"}}},\"group_key\":\"match:final\",\"actor\":\"ref\"}");

    @Test
    void pagesAndChunksComeBackAsTheyWent() {
        List<FanOutQueue.Work> work = List.of(new FanOutQueue.Page(ID, GOAL, Optional.empty()), new FanOutQueue.Page(ID, GOAL, Optional.of(UserId.of("fan-00999"))),
                new FanOutQueue.Chunk(ID, GOAL, List.of(UserId.of("a"), UserId.of("b@x.org")), java.util.Set.of(UserId.of("b@x.org"))),
                new FanOutQueue.Live(ID, GOAL, 0, Optional.empty()),
                new FanOutQueue.Live(ID, GOAL, 15, Optional.of(dev.parley.model.ConnectionId.of("Abc123="))));
        for (FanOutQueue.Work piece : work) {
            assertThat(SqsFanOutQueue.parse(SqsFanOutQueue.body(piece))).isEqualTo(piece);
        }
        assertThat(PublishRequest.parse(GOAL.toJson())).isEqualTo(GOAL);
    }

    @Test
    void aBodyThatIsNotFanOutWorkIsRefused() {
        for (String body : List.of("not json", "{}", "{\"notification\":\"x\",\"request\":{}}",
                "{\"notification\":\"" + ID + "\",\"request\":{\"category\":\"goals\"}}", "{\"user\":\"a\",\"attempt\":1}",
                SqsFanOutQueue.body(new FanOutQueue.Live(ID, GOAL, 3, Optional.empty())).replace("\"shard\":3", "\"shard\":16"),
                SqsFanOutQueue.body(new FanOutQueue.Live(ID, GOAL, 3, Optional.empty())).replace("\"shard\":3,", ""))) {
            assertThatThrownBy(() -> SqsFanOutQueue.parse(body)).as(body).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
