package org.flinkss.runtime.expect;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How {@code --expect NAME:EXPR:ACTION} is read, and what it refuses. */
class ExpectationTest {

    @Test
    void aRuleIsANameAnExpressionAndAnActionForTheMainTable() {
        Expectation rule = Expectation.parse("positive_amount:amount >= 0:drop");

        assertThat(rule.table()).isNull();
        assertThat(rule.name()).isEqualTo("positive_amount");
        assertThat(rule.expression()).isEqualTo("amount >= 0");
        assertThat(rule.action()).isEqualTo(ExpectationAction.DROP);
        assertThat(rule.appliesTo("events_bronze", true)).isTrue();
        assertThat(rule.appliesTo("events_bronze_quarantine", false)).isFalse();
        assertThat(rule).hasToString("positive_amount:amount >= 0:drop");
    }

    @Test
    void aTablePrefixNamesTheTableAndColonsInTheExpressionStay() {
        Expectation rule =
                Expectation.parse(
                        "events_5min.after_march:window_start >= TIMESTAMP '2025-03-01 00:00:00':"
                                + " FAIL ");

        assertThat(rule.table()).isEqualTo("events_5min");
        assertThat(rule.name()).isEqualTo("after_march");
        assertThat(rule.expression()).isEqualTo("window_start >= TIMESTAMP '2025-03-01 00:00:00'");
        assertThat(rule.action()).isEqualTo(ExpectationAction.FAIL);
        assertThat(rule.appliesTo("events_5min", true)).isTrue();
        assertThat(rule.appliesTo("events_bronze", true)).isFalse();
    }

    @Test
    void aRuleWithoutAnActionOrWithAnUnknownOneIsRefusedSayingTheForm() {
        assertThatThrownBy(() -> Expectation.parse("positive_amount:amount >= 0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "expectation 'positive_amount:amount >= 0' is not NAME:EXPR:ACTION (e.g."
                                + " positive_amount:amount >= 0:drop)");
        assertThatThrownBy(() -> Expectation.parse("positive_amount:amount >= 0:skip"))
                .hasMessage(
                        "expectation 'positive_amount:amount >= 0:skip': unknown action 'skip':"
                                + " use warn, drop or fail");
    }

    @Test
    void aNameThatIsNoIdentifierAndAnEmptyExpressionAreRefused() {
        assertThatThrownBy(() -> Expectation.parse("1st rule:amount > 0:warn"))
                .hasMessageContaining("expectation name '1st rule' is not a name");
        assertThatThrownBy(() -> Expectation.parse("positive_amount: :warn"))
                .hasMessage("expectation 'positive_amount' has no expression");
    }
}
