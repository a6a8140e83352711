package io.gitm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VersionCommandTest {
  @Test
  void jsonVersionNamesGitmAndJava() throws Exception {
    CliResult r = CliResult.run("version", "--json");
    assertThat(r.code()).isZero();
    var node = Json.MAPPER.readTree(r.out());
    assertThat(node.get("gitm").asString()).isNotBlank();
    assertThat(node.get("java").asString()).startsWith(String.valueOf(Runtime.version().feature()));
  }
}
