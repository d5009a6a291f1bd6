package dev.parley.local.dynamodb.expression;

import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.KeyValues;
import dev.parley.local.dynamodb.model.Numbers;
import dev.parley.model.Utf8;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/** Evaluates parsed expressions against items: conditions, updates and projections. */
public final class Evaluator {
    private static final Set<String> TYPE_NAMES = Set.of("S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS");

    private Evaluator() {
    }

    // ---- paths -----------------------------------------------------------------------------------

    public static Optional<AttrValue> resolve(Map<String, AttrValue> item, Path path) {
        AttrValue current = item.get(path.topLevelName());
        for (Path.Element element : path.elements().subList(1, path.elements().size())) {
            if (current == null) {
                return Optional.empty();
            }
            current = switch (element) {
                case Path.Name name -> current instanceof AttrValue.M map ? map.values().get(name.name()) : null;
                case Path.Index index -> current instanceof AttrValue.L list && index.index() < list.values().size()
                        ? list.values().get(index.index()) : null;
            };
        }
        return Optional.ofNullable(current);
    }

    // ---- conditions ------------------------------------------------------------------------------

    public static boolean test(Condition condition, Map<String, AttrValue> item, ExpressionKind kind) {
        return switch (condition) {
            case Condition.And and -> test(and.left(), item, kind) && test(and.right(), item, kind);
            case Condition.Or or -> test(or.left(), item, kind) || test(or.right(), item, kind);
            case Condition.Not not -> !test(not.condition(), item, kind);
            case Condition.AttributeExists exists -> resolve(item, exists.path()).isPresent();
            case Condition.AttributeNotExists notExists -> resolve(item, notExists.path()).isEmpty();
            case Condition.AttributeType type -> attributeType(type, item, kind);
            case Condition.BeginsWith beginsWith -> beginsWith(beginsWith, item, kind);
            case Condition.Contains contains -> contains(contains, item);
            case Condition.Compare compare -> compare(compare, item);
            case Condition.Between between -> between(between, item, kind);
            case Condition.In in -> {
                Optional<AttrValue> value = value(in.value(), item);
                yield value.isPresent() && in.options().stream().anyMatch(o -> value(o, item).equals(value));
            }
        };
    }

    /** An operand's value in a condition: absent when its path is absent (or size() of a type without one). */
    static Optional<AttrValue> value(Operand operand, Map<String, AttrValue> item) {
        return switch (operand) {
            case Operand.PathOperand path -> resolve(item, path.path());
            case Operand.Value value -> Optional.of(value.value());
            case Operand.Size size -> resolve(item, size.path()).flatMap(Evaluator::size);
            default -> throw new IllegalStateException("not a condition operand: " + operand);
        };
    }

    private static Optional<AttrValue> size(AttrValue value) {
        long size = switch (value) {
            case AttrValue.S s -> Utf8.length(s.value());
            case AttrValue.B b -> b.value().length();
            case AttrValue.L l -> l.values().size();
            case AttrValue.M m -> m.values().size();
            case AttrValue.SS ss -> ss.values().size();
            case AttrValue.NS ns -> ns.values().size();
            case AttrValue.BS bs -> bs.values().size();
            default -> -1;
        };
        return size < 0 ? Optional.empty() : Optional.of(AttrValue.n(size));
    }

    private static boolean compare(Condition.Compare compare, Map<String, AttrValue> item) {
        Optional<AttrValue> left = value(compare.left(), item);
        Optional<AttrValue> right = value(compare.right(), item);
        if (compare.comparator() == Condition.Comparator.EQ) {
            return left.isPresent() && left.equals(right);
        }
        if (compare.comparator() == Condition.Comparator.NE) {
            return (left.isPresent() || right.isPresent()) && !left.equals(right);
        }
        if (left.isEmpty() || right.isEmpty() || !ordered(left.get(), right.get())) {
            return false;
        }
        int order = KeyValues.compare(left.get(), right.get());
        return switch (compare.comparator()) {
            case LT -> order < 0;
            case LE -> order <= 0;
            case GT -> order > 0;
            case GE -> order >= 0;
            default -> throw new IllegalStateException();
        };
    }

    private static boolean ordered(AttrValue a, AttrValue b) {
        return a.getClass() == b.getClass()
                && (a instanceof AttrValue.N || a instanceof AttrValue.S || a instanceof AttrValue.B);
    }

    private static boolean between(Condition.Between between, Map<String, AttrValue> item, ExpressionKind kind) {
        Optional<AttrValue> lower = value(between.lower(), item);
        Optional<AttrValue> upper = value(between.upper(), item);
        if (between.lower() instanceof Operand.Value && between.upper() instanceof Operand.Value
                && ordered(lower.get(), upper.get()) && KeyValues.compare(lower.get(), upper.get()) > 0) {
            throw kind.invalid("The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {"
                    + describe(lower.get()) + "}, upper bound operand: AttributeValue: {" + describe(upper.get()) + "}");
        }
        Optional<AttrValue> value = value(between.value(), item);
        if (value.isEmpty() || lower.isEmpty() || upper.isEmpty()
                || !ordered(value.get(), lower.get()) || !ordered(value.get(), upper.get())) {
            return false;
        }
        return KeyValues.compare(lower.get(), value.get()) <= 0 && KeyValues.compare(value.get(), upper.get()) <= 0;
    }

    private static boolean attributeType(Condition.AttributeType condition, Map<String, AttrValue> item, ExpressionKind kind) {
        Optional<AttrValue> type = value(condition.type(), item);
        if (type.isEmpty() || !(type.get() instanceof AttrValue.S name)) {
            throw kind.invalid("Incorrect operand type for operator or function; operator or function: attribute_type, operand type: "
                    + type.map(AttrValue::typeName).orElse("NULL"));
        }
        if (!TYPE_NAMES.contains(name.value())) {
            throw kind.invalid("Invalid attribute type name found; type: " + name.value() + ", valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}");
        }
        return resolve(item, condition.path()).map(v -> v.typeName().equals(name.value())).orElse(false);
    }

    private static boolean beginsWith(Condition.BeginsWith condition, Map<String, AttrValue> item, ExpressionKind kind) {
        Optional<AttrValue> prefix = value(condition.prefix(), item);
        if (condition.prefix() instanceof Operand.Value && !(prefix.get() instanceof AttrValue.S || prefix.get() instanceof AttrValue.B)) {
            throw kind.invalid("Incorrect operand type for operator or function; operator or function: begins_with, operand type: "
                    + prefix.get().typeName());
        }
        Optional<AttrValue> value = value(condition.value(), item);
        if (value.isEmpty() || prefix.isEmpty()) {
            return false;
        }
        if (value.get() instanceof AttrValue.S s && prefix.get() instanceof AttrValue.S p) {
            return s.value().startsWith(p.value());
        }
        if (value.get() instanceof AttrValue.B b && prefix.get() instanceof AttrValue.B p) {
            return b.value().startsWith(p.value());
        }
        return false;
    }

    private static boolean contains(Condition.Contains condition, Map<String, AttrValue> item) {
        Optional<AttrValue> container = value(condition.value(), item);
        Optional<AttrValue> operand = value(condition.operand(), item);
        if (container.isEmpty() || operand.isEmpty()) {
            return false;
        }
        AttrValue part = operand.get();
        return switch (container.get()) {
            case AttrValue.S s -> part instanceof AttrValue.S p && s.value().contains(p.value());
            case AttrValue.B b -> part instanceof AttrValue.B p && b.value().contains(p.value());
            case AttrValue.SS ss -> part instanceof AttrValue.S p && ss.values().contains(p.value());
            case AttrValue.NS ns -> part instanceof AttrValue.N p && ns.values().contains(p.value());
            case AttrValue.BS bs -> part instanceof AttrValue.B p && bs.values().contains(p.value());
            case AttrValue.L l -> l.values().contains(part);
            default -> false;
        };
    }

    private static String describe(AttrValue value) {
        return switch (value) {
            case AttrValue.N n -> "N:" + Numbers.format(n.value());
            case AttrValue.S s -> "S:" + s.value();
            case AttrValue.B b -> "B:" + b.value();
            default -> value.typeName();
        };
    }

    // ---- updates ---------------------------------------------------------------------------------

    /**
     * Applies an update to an item (empty for an absent one). Every right-hand side is evaluated
     * against the item as it was before the update, as DynamoDB does.
     */
    public static Map<String, AttrValue> apply(UpdateExpression update, Map<String, AttrValue> item) {
        List<AttrValue> setValues = new ArrayList<>();
        for (UpdateExpression.Set set : update.sets()) {
            setValues.add(updateValue(set.value(), item));
        }
        Map<String, AttrValue> result = new LinkedHashMap<>(item);
        for (int i = 0; i < update.sets().size(); i++) {
            write(result, update.sets().get(i).path(), setValues.get(i));
        }
        List<Path> removes = new ArrayList<>(update.removes());
        // Later list indexes first, so removing one element does not shift the next one removed.
        removes.sort(Comparator.comparing(Evaluator::indexKey).reversed());
        for (Path path : removes) {
            remove(result, path);
        }
        for (UpdateExpression.Add add : update.adds()) {
            Optional<AttrValue> current = resolve(item, add.path());
            write(result, add.path(), added(current, add.value().value()));
        }
        for (UpdateExpression.Delete delete : update.deletes()) {
            Optional<AttrValue> current = resolve(item, delete.path());
            if (current.isEmpty()) {
                requireSet(delete.value().value());
                continue;
            }
            Optional<AttrValue> remaining = deleted(current.get(), delete.value().value());
            if (remaining.isPresent()) {
                write(result, delete.path(), remaining.get());
            } else {
                remove(result, delete.path());
            }
        }
        return result;
    }

    private static String indexKey(Path path) {
        StringBuilder key = new StringBuilder();
        for (Path.Element element : path.elements()) {
            key.append(element instanceof Path.Index index ? String.format("[%010d]", index.index()) : "." + element);
        }
        return key.toString();
    }

    private static AttrValue updateValue(Operand operand, Map<String, AttrValue> item) {
        return switch (operand) {
            case Operand.Value value -> value.value();
            case Operand.PathOperand path -> resolve(item, path.path()).orElseThrow(() -> DynamoDbError.validation(
                    "The provided expression refers to an attribute that does not exist in the item"));
            case Operand.IfNotExists ifNotExists ->
                    resolve(item, ifNotExists.path()).orElseGet(() -> updateValue(ifNotExists.fallback(), item));
            case Operand.ListAppend append -> {
                AttrValue first = updateValue(append.first(), item);
                AttrValue second = updateValue(append.second(), item);
                if (!(first instanceof AttrValue.L a) || !(second instanceof AttrValue.L b)) {
                    throw incorrectOperandType();
                }
                List<AttrValue> joined = new ArrayList<>(a.values());
                joined.addAll(b.values());
                yield new AttrValue.L(joined);
            }
            case Operand.Plus plus -> arithmetic(updateValue(plus.left(), item), updateValue(plus.right(), item), true);
            case Operand.Minus minus -> arithmetic(updateValue(minus.left(), item), updateValue(minus.right(), item), false);
            case Operand.Size ignored -> throw ExpressionKind.UPDATE.invalid("The function is not allowed in an update expression; function: size");
        };
    }

    private static AttrValue arithmetic(AttrValue left, AttrValue right, boolean add) {
        if (!(left instanceof AttrValue.N a) || !(right instanceof AttrValue.N b)) {
            throw incorrectOperandType();
        }
        return new AttrValue.N(add ? Numbers.add(a.value(), b.value()) : Numbers.subtract(a.value(), b.value()));
    }

    private static AttrValue added(Optional<AttrValue> current, AttrValue value) {
        if (current.isEmpty()) {
            if (value instanceof AttrValue.N || isSet(value)) {
                return value;
            }
            throw incorrectOperandType();
        }
        return switch (current.get()) {
            case AttrValue.N n when value instanceof AttrValue.N m -> new AttrValue.N(Numbers.add(n.value(), m.value()));
            case AttrValue.SS ss when value instanceof AttrValue.SS more -> new AttrValue.SS(union(ss.values(), more.values()));
            case AttrValue.NS ns when value instanceof AttrValue.NS more -> new AttrValue.NS(union(ns.values(), more.values()));
            case AttrValue.BS bs when value instanceof AttrValue.BS more -> new AttrValue.BS(union(bs.values(), more.values()));
            default -> throw incorrectOperandType();
        };
    }

    private static Optional<AttrValue> deleted(AttrValue current, AttrValue value) {
        requireSet(value);
        AttrValue remaining = switch (current) {
            case AttrValue.SS ss when value instanceof AttrValue.SS less -> new AttrValue.SS(minus(ss.values(), less.values()));
            case AttrValue.NS ns when value instanceof AttrValue.NS less -> new AttrValue.NS(minus(ns.values(), less.values()));
            case AttrValue.BS bs when value instanceof AttrValue.BS less -> new AttrValue.BS(minus(bs.values(), less.values()));
            default -> throw incorrectOperandType();
        };
        boolean empty = switch (remaining) {
            case AttrValue.SS ss -> ss.values().isEmpty();
            case AttrValue.NS ns -> ns.values().isEmpty();
            case AttrValue.BS bs -> bs.values().isEmpty();
            default -> false;
        };
        return empty ? Optional.empty() : Optional.of(remaining);
    }

    private static void requireSet(AttrValue value) {
        if (!isSet(value)) {
            throw incorrectOperandType();
        }
    }

    private static boolean isSet(AttrValue value) {
        return value instanceof AttrValue.SS || value instanceof AttrValue.NS || value instanceof AttrValue.BS;
    }

    private static <T> Set<T> union(Set<T> a, Set<T> b) {
        Set<T> all = new LinkedHashSet<>(a);
        all.addAll(b);
        return all;
    }

    private static <T> Set<T> minus(Set<T> a, Set<T> b) {
        Set<T> rest = new LinkedHashSet<>(a);
        rest.removeAll(b);
        return rest;
    }

    private static DynamoDbError incorrectOperandType() {
        // Found while applying the update to the stored item, so (as on AWS) without the "Invalid UpdateExpression" prefix.
        return DynamoDbError.validation("An operand in the update expression has an incorrect data type");
    }

    private static DynamoDbError invalidPath() {
        return DynamoDbError.validation("The document path provided in the update expression is invalid for update");
    }

    /** Writes {@code value} at {@code path}, copying the containers on the way; a list index past the end appends. */
    private static void write(Map<String, AttrValue> item, Path path, AttrValue value) {
        List<Path.Element> elements = path.elements();
        if (elements.size() == 1) {
            item.put(path.topLevelName(), value);
            return;
        }
        AttrValue root = item.get(path.topLevelName());
        if (root == null) {
            throw invalidPath();
        }
        item.put(path.topLevelName(), replaced(root, elements, 1, value));
    }

    private static AttrValue replaced(AttrValue container, List<Path.Element> elements, int at, AttrValue value) {
        Path.Element element = elements.get(at);
        boolean last = at == elements.size() - 1;
        if (element instanceof Path.Name name && container instanceof AttrValue.M map) {
            Map<String, AttrValue> copy = new LinkedHashMap<>(map.values());
            AttrValue child = copy.get(name.name());
            if (last) {
                copy.put(name.name(), value);
            } else if (child == null) {
                throw invalidPath();
            } else {
                copy.put(name.name(), replaced(child, elements, at + 1, value));
            }
            return new AttrValue.M(copy);
        }
        if (element instanceof Path.Index index && container instanceof AttrValue.L list) {
            List<AttrValue> copy = new ArrayList<>(list.values());
            if (index.index() >= copy.size()) {
                if (!last) {
                    throw invalidPath();
                }
                copy.add(value);
            } else {
                copy.set(index.index(), last ? value : replaced(copy.get(index.index()), elements, at + 1, value));
            }
            return new AttrValue.L(copy);
        }
        throw invalidPath();
    }

    private static void remove(Map<String, AttrValue> item, Path path) {
        List<Path.Element> elements = path.elements();
        if (elements.size() == 1) {
            item.remove(path.topLevelName());
            return;
        }
        AttrValue root = item.get(path.topLevelName());
        if (root == null) {
            return;
        }
        removed(root, elements, 1).ifPresent(updated -> item.put(path.topLevelName(), updated));
    }

    /** The container without the element at the path's end; empty when there was nothing to remove. */
    private static Optional<AttrValue> removed(AttrValue container, List<Path.Element> elements, int at) {
        Path.Element element = elements.get(at);
        boolean last = at == elements.size() - 1;
        if (element instanceof Path.Name name && container instanceof AttrValue.M map) {
            AttrValue child = map.values().get(name.name());
            if (child == null) {
                return Optional.empty();
            }
            Map<String, AttrValue> copy = new LinkedHashMap<>(map.values());
            if (last) {
                copy.remove(name.name());
            } else {
                Optional<AttrValue> updated = removed(child, elements, at + 1);
                if (updated.isEmpty()) {
                    return Optional.empty();
                }
                copy.put(name.name(), updated.get());
            }
            return Optional.of(new AttrValue.M(copy));
        }
        if (element instanceof Path.Index index && container instanceof AttrValue.L list) {
            if (index.index() >= list.values().size()) {
                return Optional.empty();
            }
            List<AttrValue> copy = new ArrayList<>(list.values());
            if (last) {
                copy.remove(index.index());
            } else {
                Optional<AttrValue> updated = removed(copy.get(index.index()), elements, at + 1);
                if (updated.isEmpty()) {
                    return Optional.empty();
                }
                copy.set(index.index(), updated.get());
            }
            return Optional.of(new AttrValue.L(copy));
        }
        return Optional.empty();
    }

    // ---- projections -----------------------------------------------------------------------------

    /** The parts of the item the paths name, in the item's shape; list elements keep their order. */
    public static Map<String, AttrValue> project(Map<String, AttrValue> item, List<Path> paths) {
        Node root = new Node();
        for (Path path : paths) {
            Node node = root;
            for (Path.Element element : path.elements()) {
                node = node.children.computeIfAbsent(element, e -> new Node());
            }
            node.whole = true;
        }
        Map<String, AttrValue> result = new LinkedHashMap<>();
        for (Map.Entry<Path.Element, Node> child : root.children.entrySet()) {
            String name = ((Path.Name) child.getKey()).name();
            AttrValue value = item.get(name);
            if (value != null) {
                project(value, child.getValue()).ifPresent(v -> result.put(name, v));
            }
        }
        return result;
    }

    private static final class Node {
        boolean whole;
        final Map<Path.Element, Node> children = new TreeMap<>(Comparator.comparing(Evaluator::elementOrder));
    }

    private static String elementOrder(Path.Element element) {
        return element instanceof Path.Index index ? String.format("[%010d]", index.index()) : "." + element;
    }

    private static Optional<AttrValue> project(AttrValue value, Node node) {
        if (node.whole) {
            return Optional.of(value);
        }
        if (value instanceof AttrValue.M map) {
            Map<String, AttrValue> projected = new LinkedHashMap<>();
            for (Map.Entry<Path.Element, Node> child : node.children.entrySet()) {
                if (child.getKey() instanceof Path.Name name && map.values().containsKey(name.name())) {
                    project(map.values().get(name.name()), child.getValue()).ifPresent(v -> projected.put(name.name(), v));
                }
            }
            return projected.isEmpty() ? Optional.empty() : Optional.of(new AttrValue.M(projected));
        }
        if (value instanceof AttrValue.L list) {
            List<AttrValue> projected = new ArrayList<>();
            for (Map.Entry<Path.Element, Node> child : node.children.entrySet()) {
                if (child.getKey() instanceof Path.Index index && index.index() < list.values().size()) {
                    project(list.values().get(index.index()), child.getValue()).ifPresent(projected::add);
                }
            }
            return projected.isEmpty() ? Optional.empty() : Optional.of(new AttrValue.L(projected));
        }
        return Optional.empty();
    }
}
