package io.gitm.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class S3RootTest {
  @Test
  void parsesBucketAndPrefix() {
    assertThat(S3Root.parse("s3://my-bucket/gitm/runs/")).isEqualTo(new S3Root("my-bucket", "gitm/runs"));
    assertThat(S3Root.parse("s3://b.example")).isEqualTo(new S3Root("b.example", ""));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "http://bucket/x", "s3://", "s3://UPPER/x", "s3://ab", "s3://-bad/x", "s3://a..b/x",
      "s3://ok-bucket/a//b"})
  void rejectsMalformedRoots(String uri) {
    assertThatThrownBy(() -> S3Root.parse(uri)).isInstanceOf(IllegalArgumentException.class);
  }
}
