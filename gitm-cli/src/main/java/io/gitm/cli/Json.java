package io.gitm.cli;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The CLI's JSON output: pretty-printed, stable field order for records. */
final class Json {
  static final ObjectMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

  private Json() {}

  static String write(Object value) {
    return MAPPER.writeValueAsString(value);
  }

  @SuppressWarnings("unchecked")
  static java.util.Map<String, Object> readMap(java.nio.file.Path file) {
    return MAPPER.readValue(file.toFile(), java.util.Map.class);
  }
}
