package io.gitm.report;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The report as JSON ({@code docs/report-schema.md}). Reading is strict: every field must be present (optional
 * ones as {@code null}), no unknown field is accepted, and the schema version must be the one this code reads.
 */
final class Json {
  private Json() {}

  private static final JsonMapper MAPPER = JsonMapper.builder()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  static String write(Report r) {
    return MAPPER.writeValueAsString(r) + "\n";
  }

  static Report read(String json) {
    if (json == null || json.isBlank()) {
      throw new IllegalArgumentException("the report JSON is empty");
    }
    try {
      return MAPPER.readValue(json, Report.class);
    } catch (JacksonException e) {
      Throwable cause = e;
      while (cause.getCause() != null && cause.getCause() != cause) {
        cause = cause.getCause();
      }
      if (cause instanceof IllegalArgumentException iae) {
        throw new IllegalArgumentException("not a valid gitm report: " + iae.getMessage(), e);
      }
      throw new IllegalArgumentException(
          "not a valid gitm report: " + e.getOriginalMessage().lines().findFirst().orElse("") + where(e), e);
    }
  }

  private static String where(JacksonException e) {
    String path = e.getPathReference();
    return path == null || path.isBlank() ? "" : " (at " + path + ")";
  }
}
