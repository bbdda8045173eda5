package dev.turnstile.spring.internal.key;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;
import org.springframework.expression.ParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

class KeyTemplateTests {

    record Item(String id, Owner owner) {}

    record Owner(String name) {}

    static final class Service {
        public void buy(String buyerId, String itemId, Item item, List<String> skus) {}
    }

    private static final Method BUY;

    static {
        try {
            BUY = Service.class.getMethod("buy", String.class, String.class, Item.class, List.class);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private final CountingParser parser = new CountingParser();
    private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
    private final KeyExpressionEvaluator evaluator = new KeyExpressionEvaluator(this.parser, this.beans);

    private List<String> render(String template, Object... args) {
        AnnotatedElementKey key = new AnnotatedElementKey(BUY, Service.class);
        return this.evaluator
                .template(key, template)
                .render(this.evaluator.context(BUY, args, new Service(), Service.class), "Service.buy");
    }

    private Object[] args() {
        return new Object[] {"b1", "i42", new Item("x7", new Owner("ann")), List.of("s2", "s1")};
    }

    @Test
    void literalTemplateRendersToItself() {
        assertThat(render("market", args())).containsExactly("market");
    }

    @Test
    void blockIsEvaluatedWithParameterNamesAndIndexes() {
        assertThat(render("item:#{#itemId}", args())).containsExactly("item:i42");
        assertThat(render("item:#{#p1}/#{#a0}", args())).containsExactly("item:i42/b1");
        assertThat(render("#{#root.methodName}:#{#root.args[0]}", args())).containsExactly("buy:b1");
    }

    @Test
    void shortFormEqualsTheBlockForm() {
        assertThat(render("item:#itemId", args())).isEqualTo(render("item:#{#itemId}", args()));
        assertThat(render("owner:#item.owner.name:#buyerId", args())).containsExactly("owner:ann:b1");
    }

    @Test
    void shortFormEndsAtTheFirstCharacterThatIsNotAPath() {
        assertThat(render("#itemId.", args())).containsExactly("i42.");
        assertThat(render("#itemId-#buyerId", args())).containsExactly("i42-b1");
        assertThat(render("a#1", args())).as("'#' before a digit is literal").containsExactly("a#1");
    }

    @Test
    void escapesProduceLiteralHashAndBackslash() {
        assertThat(render("tag\\#itemId", args())).containsExactly("tag#itemId");
        assertThat(render("back\\\\#itemId", args())).containsExactly("back\\i42");
    }

    @Test
    void blocksMayContainBracesAndQuotedBraces() {
        assertThat(render("#{ {'a','b'}.size() }", args())).containsExactly("2");
        assertThat(render("x#{'}'}y", args())).containsExactly("x}y");
    }

    @Test
    void beansAreReachableWithAt() {
        this.beans.registerSingleton("tiers", new Owner("gold"));
        assertThat(render("tier:#{@tiers.name}", args())).containsExactly("tier:gold");
    }

    @Test
    void singleBlockReturningACollectionGivesOneKeyPerElement() {
        assertThat(render("#{#skus}", args())).containsExactly("s2", "s1");
    }

    @Test
    void nullValueIsRejectedNamingMethodTemplateAndExpression() {
        Object[] args = {"b1", null, null, List.of()};
        assertThatIllegalArgumentException()
                .isThrownBy(() -> render("item:#itemId", args))
                .withMessageContaining("'item:#itemId'")
                .withMessageContaining("Service.buy")
                .withMessageContaining("'#itemId' is null");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> render("#{#skus}", args))
                .withMessageContaining("empty collection");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> render("item:#{#itemId.trim()}", new Object[] {"b", "  ", null, List.of()}))
                .withMessageContaining("is blank");
    }

    @Test
    void unclosedBlockIsReportedWithItsPosition() {
        AnnotatedElementKey key = new AnnotatedElementKey(BUY, Service.class);
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.evaluator.template(key, "item:#{#itemId"))
                .withMessageContaining("Unclosed #{ at position 5");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> this.evaluator.template(key, "a#{ }"))
                .withMessageContaining("Empty #{}");
    }

    @Test
    void templateIsParsedOncePerMethodAndText() {
        for (int i = 0; i < 100; i++) {
            render("item:#itemId:#{#buyerId}", args());
        }
        assertThat(this.parser.calls.get()).isEqualTo(2);
        render("other:#itemId", args());
        assertThat(this.parser.calls.get()).isEqualTo(3);
    }

    @Test
    void argumentValuesAreNeverParsed() {
        Object[] args = {"#{T(java.lang.System).exit(1)}", "i", null, List.of()};
        assertThat(render("buyer:#buyerId", args)).containsExactly("buyer:#{T(java.lang.System).exit(1)}");
        assertThat(this.parser.calls.get()).isEqualTo(1);
    }

    /** Counts calls into SpEL's parser. */
    private static final class CountingParser implements ExpressionParser {
        private final SpelExpressionParser delegate = new SpelExpressionParser();
        private final AtomicInteger calls = new AtomicInteger();

        @Override
        public Expression parseExpression(String expressionString) throws ParseException {
            this.calls.incrementAndGet();
            return this.delegate.parseExpression(expressionString);
        }

        @Override
        public Expression parseExpression(String expressionString, ParserContext context) throws ParseException {
            this.calls.incrementAndGet();
            return this.delegate.parseExpression(expressionString, context);
        }
    }
}
