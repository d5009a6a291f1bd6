package dev.parley.infra;

/**
 * The CDK app that {@code cdk.json} runs. The stack is built from the function manifest, which does
 * not exist yet; until it does, synthesizing would produce an empty or invented stack, so this says
 * so and fails rather than hand {@code cdk deploy} something that is not Parley.
 */
public final class ParleyCdkApp {
    private ParleyCdkApp() {
    }

    public static void main(String[] args) {
        System.err.println("Parley's CDK stack is not built yet: it is generated from the function manifest (see the "
                + "infrastructure-as-code issue). Nothing was synthesized.");
        System.exit(2);
    }
}
