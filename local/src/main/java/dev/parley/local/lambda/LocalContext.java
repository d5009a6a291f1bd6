package dev.parley.local.lambda;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import dev.parley.functions.manifest.FunctionSpec;
import java.nio.charset.StandardCharsets;

/** The {@link Context} a handler gets locally: the same fields as on Lambda, the time left counted from the timeout. */
final class LocalContext implements Context {
    private final FunctionSpec function;
    private final String requestId;
    private final long deadlineNanos;
    private final String logStream;

    LocalContext(FunctionSpec function, String requestId, long deadlineNanos, String logStream) {
        this.function = function;
        this.requestId = requestId;
        this.deadlineNanos = deadlineNanos;
        this.logStream = logStream;
    }

    @Override
    public String getAwsRequestId() {
        return requestId;
    }

    @Override
    public String getLogGroupName() {
        return "/aws/lambda/" + function.name();
    }

    @Override
    public String getLogStreamName() {
        return logStream;
    }

    @Override
    public String getFunctionName() {
        return function.name();
    }

    @Override
    public String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
        return "arn:aws:lambda:local:000000000000:function:" + function.name();
    }

    @Override
    public CognitoIdentity getIdentity() {
        return null;
    }

    @Override
    public ClientContext getClientContext() {
        return null;
    }

    @Override
    public int getRemainingTimeInMillis() {
        return (int) Math.max(0, (deadlineNanos - System.nanoTime()) / 1_000_000);
    }

    @Override
    public int getMemoryLimitInMB() {
        return function.memoryMb();
    }

    @Override
    public LambdaLogger getLogger() {
        return new LambdaLogger() {
            @Override
            public void log(String message) {
                System.out.println("[" + function.name() + " " + requestId + "] " + message);
            }

            @Override
            public void log(byte[] message) {
                log(new String(message, StandardCharsets.UTF_8));
            }
        };
    }
}
