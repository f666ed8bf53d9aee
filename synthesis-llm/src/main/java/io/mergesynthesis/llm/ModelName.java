package io.mergesynthesis.llm;

/** Configuration names a model {@code <provider>/<model>}; the model part may itself contain slashes. */
final class ModelName {

    private ModelName() {
    }

    /** The provider part, or {@code null} when the name has no non-empty provider and model parts. */
    static String providerOf(String qualified) {
        int slash = qualified == null ? -1 : qualified.indexOf('/');
        if (slash <= 0 || slash == qualified.length() - 1) {
            return null;
        }
        return qualified.substring(0, slash);
    }
}
