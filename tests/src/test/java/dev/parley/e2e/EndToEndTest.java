package dev.parley.e2e;

import java.util.UUID;

/**
 * What every end-to-end test class shares: the stack under test, and user names of its own run, so
 * that test classes sharing one stack never meet each other's users or conversations.
 */
abstract class EndToEndTest {
    protected final StackUnderTest stack = StackUnderTest.get();
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    /** {@code name}, made this run's own. */
    protected String user(String name) {
        return name + "-" + run;
    }

    /** A connected client of {@code user} (a name {@link #user} made) on {@code device}. */
    protected ParleyClient connect(String user, String device) throws Exception {
        return ParleyClient.connect(stack, user, device);
    }
}
