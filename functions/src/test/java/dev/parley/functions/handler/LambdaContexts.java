package dev.parley.functions.handler;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;

/** A Lambda {@link Context} as the runtime gives one to a function's invocation: its name, a request id, a logger to stdout. */
final class LambdaContexts {
    static final String REQUEST_ID = "test-request";

    private LambdaContexts() {
    }

    static Context of(String functionName) {
        LambdaLogger logger = new LambdaLogger() {
            @Override
            public void log(String message) {
                System.out.println(message);
            }

            @Override
            public void log(byte[] message) {
                System.out.println(new String(message, StandardCharsets.UTF_8));
            }
        };
        return new Context() {
            public String getAwsRequestId() { return REQUEST_ID; }
            public String getLogGroupName() { return "/aws/lambda/" + functionName; }
            public String getLogStreamName() { return "test"; }
            public String getFunctionName() { return functionName; }
            public String getFunctionVersion() { return "$LATEST"; }
            public String getInvokedFunctionArn() { return "arn:aws:lambda:us-east-1:000000000000:function:" + functionName; }
            public CognitoIdentity getIdentity() { return null; }
            public ClientContext getClientContext() { return null; }
            public int getRemainingTimeInMillis() { return 10_000; }
            public int getMemoryLimitInMB() { return 1024; }
            public LambdaLogger getLogger() { return logger; }
        };
    }
}
