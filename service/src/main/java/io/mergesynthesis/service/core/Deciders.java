package io.mergesynthesis.service.core;

/**
 * Who acknowledged and who resolved a conflict, each as the JSON its row keeps ({@code {"type": "person", "id",
 * "email", "name"}} or {@code {"type": "token", "id", "name"}}), or null where no one has (or the change predates
 * schema 27).
 */
public record Deciders(String acknowledgedByJson, String resolvedByJson) {

    public static final Deciders NONE = new Deciders(null, null);
}
