package dev.parley.functions.usecase;

import dev.parley.testsupport.ports.InMemoryTopics;

/** Topic audiences over in-memory topics, for the tests of publishing that name their recipients. */
public final class InMemoryAudiences {
    private InMemoryAudiences() {
    }

    public static TopicAudiences create() {
        InMemoryTopics topics = new InMemoryTopics();
        return new TopicAudiences(topics, topics, TopicAudiences.DEFAULT_READ_ABOVE);
    }
}
