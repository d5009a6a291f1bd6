package dev.parley.local.dynamodb.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.expression.Condition;
import dev.parley.local.dynamodb.expression.Evaluator;
import dev.parley.local.dynamodb.expression.ExpressionContext;
import dev.parley.local.dynamodb.expression.ExpressionKind;
import dev.parley.local.dynamodb.expression.Operand;
import dev.parley.local.dynamodb.expression.Path;
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.Item;
import dev.parley.local.dynamodb.server.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;

/** Query and Scan, on tables and on their secondary indexes. */
public final class QueryScanOperations {
    /** A page ends once the items read reach 1 MB. */
    static final long PAGE_BYTES = 1024 * 1024;

    private final Database database;

    public QueryScanOperations(Database database) {
        this.database = database;
    }

    /** What Query and Scan share: where they read, how they filter, shape and count the page. */
    private record Read(String tableName, Optional<String> indexName, Optional<Condition> filter, Optional<List<Path>> projection,
                        String select, int limit, boolean consistent, Optional<Map<String, AttrValue>> exclusiveStartKey,
                        String capacityMode) {
    }

    private static Read parseRead(JsonNode request, ExpressionContext context) {
        Optional<Condition> filter = Requests.condition(request, "FilterExpression", ExpressionKind.FILTER, context);
        Optional<List<Path>> projection = Requests.projection(request, context);
        String select = Json.optionalString(request, "Select").orElse(projection.isPresent() ? "SPECIFIC_ATTRIBUTES" : "");
        if (!select.isEmpty() && !Set.of("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT").contains(select)) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + select
                    + "' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]");
        }
        if (projection.isPresent() && !select.equals("SPECIFIC_ATTRIBUTES")) {
            throw DynamoDbError.validation("Cannot specify the ProjectionExpression when choosing to get " + select);
        }
        int limit = Json.optionalInt(request, "Limit").orElse(Integer.MAX_VALUE);
        if (limit < 1) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + limit
                    + "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1");
        }
        return new Read(Json.requiredString(request, "TableName"), Json.optionalString(request, "IndexName"), filter, projection,
                select, limit, Json.optionalBoolean(request, "ConsistentRead"),
                Json.optional(request, "ExclusiveStartKey").map(Json::item), Requests.returnConsumedCapacity(request));
    }

    // ---- Query -----------------------------------------------------------------------------------

    public ObjectNode query(JsonNode request) {
        Requests.refuseLegacyParameters(request);
        ExpressionContext context = Requests.context(request, "KeyConditionExpression", "FilterExpression");
        String keyText = Json.optionalString(request, "KeyConditionExpression").orElseThrow(() -> DynamoDbError.validation(
                "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."));
        Condition keyCondition = dev.parley.local.dynamodb.expression.Parser.condition(keyText, ExpressionKind.KEY_CONDITION, context);
        Read read = parseRead(request, context);
        context.requireAllUsed();
        boolean forward = Json.optional(request, "ScanIndexForward").map(JsonNode::asBoolean).orElse(true);
        return database.read(() -> {
            TableData table = database.table(read.tableName());
            Target target = Target.of(table, read);
            KeyCondition key = KeyCondition.of(keyCondition, target.key());
            Optional<Position> start = read.exclusiveStartKey().map(esk -> target.position(esk, Optional.of(key.hash())));
            Iterator<Map.Entry<Object, Map<String, AttrValue>>> entries = target.partition(key.hash(), key, forward, start);
            return page(table, target, read, entries, "Query");
        });
    }

    // ---- Scan ------------------------------------------------------------------------------------

    public ObjectNode scan(JsonNode request) {
        Requests.refuseLegacyParameters(request);
        ExpressionContext context = Requests.context(request, "FilterExpression");
        Read read = parseRead(request, context);
        context.requireAllUsed();
        Optional<Integer> segment = Json.optionalInt(request, "Segment");
        Optional<Integer> totalSegments = Json.optionalInt(request, "TotalSegments");
        if (segment.isPresent() != totalSegments.isPresent()) {
            throw DynamoDbError.validation(segment.isPresent()
                    ? "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"
                    : "The Segment parameter is required but was not present in the request when parameter TotalSegments is present");
        }
        if (totalSegments.isPresent()) {
            if (totalSegments.get() < 1 || totalSegments.get() > 1_000_000) {
                throw DynamoDbError.validation("1 validation error detected: Value '" + totalSegments.get()
                        + "' at 'totalSegments' failed to satisfy constraint: Member must have value between 1 and 1000000");
            }
            if (segment.get() < 0 || segment.get() >= totalSegments.get()) {
                throw DynamoDbError.validation("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: "
                        + segment.get() + " is not less than TotalSegments: " + totalSegments.get());
            }
        }
        return database.read(() -> {
            TableData table = database.table(read.tableName());
            Target target = Target.of(table, read);
            Optional<Position> start = read.exclusiveStartKey().map(esk -> target.position(esk, Optional.empty()));
            Iterator<Map.Entry<Object, Map<String, AttrValue>>> entries = target.all(start);
            if (totalSegments.isPresent()) {
                int wanted = segment.get();
                int total = totalSegments.get();
                entries = filter(entries, entry -> Partitions.segment(target.hashOf(entry.getValue()), total) == wanted);
            }
            return page(table, target, read, entries, "Scan");
        });
    }

    private static <T> Iterator<T> filter(Iterator<T> source, java.util.function.Predicate<T> keep) {
        return new Iterator<>() {
            private T next;

            @Override
            public boolean hasNext() {
                while (next == null && source.hasNext()) {
                    T candidate = source.next();
                    if (keep.test(candidate)) {
                        next = candidate;
                    }
                }
                return next != null;
            }

            @Override
            public T next() {
                if (!hasNext()) {
                    throw new java.util.NoSuchElementException();
                }
                T result = next;
                next = null;
                return result;
            }
        };
    }

    // ---- one page --------------------------------------------------------------------------------

    private ObjectNode page(TableData table, Target target, Read read, Iterator<Map.Entry<Object, Map<String, AttrValue>>> entries,
                            String operation) {
        Capacity capacity = new Capacity(read.tableName());
        List<Map<String, AttrValue>> items = new ArrayList<>();
        long evaluatedBytes = 0;
        long tableFetchUnits = 0;
        int scanned = 0;
        Map<String, AttrValue> last = null;
        while (entries.hasNext() && scanned < read.limit() && evaluatedBytes < PAGE_BYTES) {
            Map<String, AttrValue> stored = entries.next().getValue();
            Map<String, AttrValue> visible = target.visible(stored);
            evaluatedBytes += Item.sizeOf(visible);
            scanned++;
            last = stored;
            Map<String, AttrValue> candidate = target.needsTableFetch(read) ? stored : visible;
            if (target.needsTableFetch(read)) {
                tableFetchUnits += (long) Capacity.readUnits(Item.sizeOf(stored), true);
            }
            if (read.filter().isEmpty() || Evaluator.test(read.filter().get(), candidate, ExpressionKind.FILTER)) {
                items.add(read.projection().map(paths -> Evaluator.project(candidate, paths)).orElse(candidate));
            }
        }
        double units = Capacity.readUnits(evaluatedBytes, read.consistent());
        target.index().ifPresentOrElse(index -> capacity.addIndexRead(index, units), () -> capacity.addTableRead(units));
        if (tableFetchUnits > 0) {
            capacity.addTableRead(read.consistent() ? tableFetchUnits : tableFetchUnits / 2.0);
        }
        database.capacityMeter().record(operation, capacity);

        ObjectNode response = Json.NODES.objectNode();
        if (!read.select().equals("COUNT")) {
            ArrayNode array = response.putArray("Items");
            items.forEach(item -> array.add(Json.writeItem(item)));
        }
        response.put("Count", items.size());
        response.put("ScannedCount", scanned);
        if (last != null && entries.hasNext()) {
            response.set("LastEvaluatedKey", Json.writeItem(target.lastEvaluatedKey(last)));
        }
        capacity.toJson(read.capacityMode(), false).ifPresent(consumed -> response.set("ConsumedCapacity", consumed));
        return response;
    }

    // ---- what is read: a table or an index -------------------------------------------------------

    /** A position to resume after: a hash key and the sort position within its partition. */
    private record Position(AttrValue hash, Object withinPartition) {
    }

    private record Target(TableData table, Optional<IndexDefinition> index, Read read) {
        static Target of(TableData table, Read read) {
            Optional<IndexDefinition> index = read.indexName().map(name -> table.definition().index(name).orElseThrow(() ->
                    DynamoDbError.validation("The table does not have the specified index: " + name)));
            index.ifPresent(i -> {
                if (i.global() && read.consistent()) {
                    throw DynamoDbError.validation("Consistent reads are not supported on global secondary indexes");
                }
                if (i.global() && read.select().equals("ALL_ATTRIBUTES") && i.projection() != IndexDefinition.ProjectionType.ALL) {
                    throw DynamoDbError.invalidParameter("Select type ALL_ATTRIBUTES is not supported for global secondary index "
                            + i.name() + " because its projection type is not ALL");
                }
            });
            if (index.isEmpty() && read.select().equals("ALL_PROJECTED_ATTRIBUTES")) {
                throw DynamoDbError.validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName");
            }
            return new Target(table, index, read);
        }

        KeySchema key() {
            return index.map(IndexDefinition::key).orElse(table.definition().key());
        }

        AttrValue hashOf(Map<String, AttrValue> item) {
            return item.get(key().hashName());
        }

        /** The item as this target holds it: whole for a table, projected for an index. */
        Map<String, AttrValue> visible(Map<String, AttrValue> item) {
            return index.map(i -> i.project(item, table.definition().key())).orElse(item);
        }

        /** An LSI read asked for attributes the index does not hold: each item is fetched from the table. */
        boolean needsTableFetch(Read read) {
            if (index.isEmpty() || index.get().global() || index.get().projection() == IndexDefinition.ProjectionType.ALL) {
                return false;
            }
            if (read.select().equals("ALL_ATTRIBUTES")) {
                return true;
            }
            return read.projection().map(paths -> paths.stream()
                    .anyMatch(path -> !index.get().projects(path.topLevelName(), table.definition().key()))).orElse(false);
        }

        Map<String, AttrValue> lastEvaluatedKey(Map<String, AttrValue> item) {
            Map<String, AttrValue> key = new java.util.LinkedHashMap<>(table.definition().key().keyAttributes(item));
            index.ifPresent(i -> key.putAll(i.key().keyAttributes(item)));
            return key;
        }

        Position position(Map<String, AttrValue> exclusiveStartKey, Optional<AttrValue> queriedHash) {
            KeySchema tableKey = table.definition().key();
            List<String> expected = new ArrayList<>(tableKey.names());
            index.ifPresent(i -> i.key().names().stream().filter(n -> !expected.contains(n)).forEach(expected::add));
            if (exclusiveStartKey.size() != expected.size() || !exclusiveStartKey.keySet().containsAll(expected)) {
                throw DynamoDbError.validation("The provided starting key is invalid: The provided key element does not match the schema");
            }
            PrimaryKey tablePosition;
            try {
                tablePosition = tableKey.extract(exclusiveStartKey, true).orElseThrow();
            } catch (DynamoDbError e) {
                throw DynamoDbError.validation("The provided starting key is invalid: " + e.getMessage());
            }
            if (index.isEmpty()) {
                queriedHash.filter(h -> !h.equals(tablePosition.hash())).ifPresent(h -> {
                    throw DynamoDbError.validation("The provided starting key is invalid: The query can return at most one partition; the starting key is in another");
                });
                return new Position(tablePosition.hash(), tablePosition.range() == null ? new AttrValue.Null() : tablePosition.range());
            }
            PrimaryKey indexPosition = index.get().key().extract(exclusiveStartKey, true).orElseThrow();
            return new Position(indexPosition.hash(), new TableData.IndexEntry(indexPosition.range(), tablePosition));
        }

        /**
         * The entries of one partition that the range condition can match, in the asked direction,
         * after the start position. Bounds narrow the sorted map, so a page costs what it returns.
         */
        @SuppressWarnings({"unchecked", "rawtypes"})
        Iterator<Map.Entry<Object, Map<String, AttrValue>>> partition(AttrValue hash, KeyCondition condition, boolean forward,
                                                                      Optional<Position> start) {
            boolean indexed = index.isPresent();
            NavigableMap<Object, Map<String, AttrValue>> entries = indexed
                    ? (NavigableMap) table.indexData(index.get().name()).partition(hash)
                    : (NavigableMap) table.partition(hash);
            RangeBounds bounds = condition.bounds();
            if (bounds.low().isPresent()) {
                AttrValue low = bounds.low().get();
                entries = indexed
                        ? entries.tailMap(bounds.lowInclusive() ? TableData.IndexEntry.before(low) : TableData.IndexEntry.after(low), true)
                        : entries.tailMap(low, bounds.lowInclusive());
            }
            if (bounds.high().isPresent()) {
                AttrValue high = bounds.high().get();
                entries = indexed
                        ? entries.headMap(bounds.highInclusive() ? TableData.IndexEntry.after(high) : TableData.IndexEntry.before(high), false)
                        : entries.headMap(high, bounds.highInclusive());
            }
            if (!forward) {
                entries = entries.descendingMap();
            }
            if (start.isPresent()) {
                entries = entries.tailMap(start.get().withinPartition(), false);
            }
            return filter(entries.entrySet().iterator(), entry -> condition.matchesRange(entry.getValue()));
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        Iterator<Map.Entry<Object, Map<String, AttrValue>>> all(Optional<Position> start) {
            if (index.isPresent()) {
                Optional<Map.Entry<AttrValue, TableData.IndexEntry>> after = start.map(p -> Map.entry(p.hash(), (TableData.IndexEntry) p.withinPartition()));
                return (Iterator) table.indexData(index.get().name()).scan(after);
            }
            Optional<PrimaryKey> after = start.map(p -> new PrimaryKey(p.hash(), p.withinPartition() instanceof AttrValue.Null ? null : (AttrValue) p.withinPartition()));
            Iterator<Map<String, AttrValue>> items = table.scan(after);
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return items.hasNext();
                }

                @Override
                public Map.Entry<Object, Map<String, AttrValue>> next() {
                    return Map.entry(Boolean.TRUE, items.next());
                }
            };
        }
    }

    // ---- key conditions --------------------------------------------------------------------------

    /** Bounds on a partition's sort key. */
    private record RangeBounds(Optional<AttrValue> low, boolean lowInclusive, Optional<AttrValue> high, boolean highInclusive) {
        static final RangeBounds NONE = new RangeBounds(Optional.empty(), false, Optional.empty(), false);
    }

    /** A Query's key condition: equality on the hash key, and at most one condition on the range key. */
    private record KeyCondition(AttrValue hash, String rangeName, Optional<Condition> range) {
        static KeyCondition of(Condition condition, KeySchema key) {
            List<Condition> parts = new ArrayList<>();
            flatten(condition, parts);
            AttrValue hash = null;
            Optional<Condition> range = Optional.empty();
            for (Condition part : parts) {
                String attribute = attributeOf(part);
                if (attribute.equals(key.hashName())) {
                    if (!(part instanceof Condition.Compare compare) || compare.comparator() != Condition.Comparator.EQ) {
                        throw ExpressionKind.KEY_CONDITION.invalid("Query key condition not supported");
                    }
                    if (hash != null) {
                        throw ExpressionKind.KEY_CONDITION.invalid("KeyConditionExpressions must only contain one condition per key");
                    }
                    hash = valueOf(compare);
                    requireType(hash, key.hashType(), key.hashName());
                } else if (key.rangeName().map(attribute::equals).orElse(false)) {
                    if (range.isPresent()) {
                        throw ExpressionKind.KEY_CONDITION.invalid("KeyConditionExpressions must only contain one condition per key");
                    }
                    if (part instanceof Condition.Compare compare && compare.comparator() == Condition.Comparator.NE) {
                        throw ExpressionKind.KEY_CONDITION.invalid("Unsupported operator in KeyConditionExpression: <>");
                    }
                    range = Optional.of(part);
                } else {
                    throw DynamoDbError.validation("Query condition missed key schema element: " + key.hashName());
                }
            }
            if (hash == null) {
                throw DynamoDbError.validation("Query condition missed key schema element: " + key.hashName());
            }
            return new KeyCondition(hash, key.rangeName().orElse(""), range);
        }

        private static void flatten(Condition condition, List<Condition> parts) {
            switch (condition) {
                case Condition.And and -> {
                    flatten(and.left(), parts);
                    flatten(and.right(), parts);
                }
                case Condition.Or ignored -> throw ExpressionKind.KEY_CONDITION.invalid("Invalid operator used in KeyConditionExpression: OR");
                case Condition.Not ignored -> throw ExpressionKind.KEY_CONDITION.invalid("Invalid operator used in KeyConditionExpression: NOT");
                case Condition.In ignored -> throw ExpressionKind.KEY_CONDITION.invalid("Invalid operator used in KeyConditionExpression: IN");
                case Condition.Contains ignored -> throw ExpressionKind.KEY_CONDITION.invalid("Invalid operator used in KeyConditionExpression: contains");
                case Condition.AttributeExists ignored -> throw ExpressionKind.KEY_CONDITION.invalid("Invalid operator used in KeyConditionExpression: attribute_exists");
                case Condition.AttributeNotExists ignored -> throw ExpressionKind.KEY_CONDITION.invalid("Invalid operator used in KeyConditionExpression: attribute_not_exists");
                case Condition.AttributeType ignored -> throw ExpressionKind.KEY_CONDITION.invalid("Invalid operator used in KeyConditionExpression: attribute_type");
                default -> {
                    if (parts.size() == 2) {
                        throw ExpressionKind.KEY_CONDITION.invalid("The expression has too many conditions; a key condition names the partition key and at most the sort key");
                    }
                    parts.add(condition);
                }
            }
        }

        /** The key attribute a part constrains: the path side must be a top-level name, the other side a value. */
        private static String attributeOf(Condition part) {
            Operand subject = switch (part) {
                case Condition.Compare compare -> {
                    if (compare.left() instanceof Operand.PathOperand && compare.right() instanceof Operand.Value) {
                        yield compare.left();
                    }
                    if (compare.right() instanceof Operand.PathOperand && compare.left() instanceof Operand.Value) {
                        yield compare.right();
                    }
                    throw ExpressionKind.KEY_CONDITION.invalid("Query key condition not supported");
                }
                case Condition.Between between -> {
                    if (!(between.lower() instanceof Operand.Value) || !(between.upper() instanceof Operand.Value)) {
                        throw ExpressionKind.KEY_CONDITION.invalid("Query key condition not supported");
                    }
                    yield between.value();
                }
                case Condition.BeginsWith beginsWith -> {
                    if (!(beginsWith.prefix() instanceof Operand.Value)) {
                        throw ExpressionKind.KEY_CONDITION.invalid("Query key condition not supported");
                    }
                    yield beginsWith.value();
                }
                default -> throw ExpressionKind.KEY_CONDITION.invalid("Query key condition not supported");
            };
            if (!(subject instanceof Operand.PathOperand path) || !path.path().isTopLevel()) {
                throw ExpressionKind.KEY_CONDITION.invalid("Query key condition not supported");
            }
            return path.path().topLevelName();
        }

        private static AttrValue valueOf(Condition.Compare compare) {
            return ((Operand.Value) (compare.left() instanceof Operand.Value ? compare.left() : compare.right())).value();
        }

        private static void requireType(AttrValue value, dev.parley.local.dynamodb.model.ScalarType type, String name) {
            if (!type.matches(value)) {
                throw DynamoDbError.invalidParameter("Condition parameter type does not match schema type");
            }
        }

        /** The bounds the range condition puts on the sort key; begins_with on a string bounds by its successor. */
        RangeBounds bounds() {
            if (range.isEmpty()) {
                return RangeBounds.NONE;
            }
            return switch (range.get()) {
                case Condition.Compare compare -> {
                    AttrValue value = valueOf(compare);
                    // "value < attribute" reads as "attribute > value": flip the comparator when the value is on the left.
                    Condition.Comparator comparator = compare.left() instanceof Operand.Value ? flip(compare.comparator()) : compare.comparator();
                    yield switch (comparator) {
                        case EQ -> new RangeBounds(Optional.of(value), true, Optional.of(value), true);
                        case LT -> new RangeBounds(Optional.empty(), false, Optional.of(value), false);
                        case LE -> new RangeBounds(Optional.empty(), false, Optional.of(value), true);
                        case GT -> new RangeBounds(Optional.of(value), false, Optional.empty(), false);
                        case GE -> new RangeBounds(Optional.of(value), true, Optional.empty(), false);
                        case NE -> RangeBounds.NONE;
                    };
                }
                case Condition.Between between -> {
                    AttrValue low = ((Operand.Value) between.lower()).value();
                    AttrValue high = ((Operand.Value) between.upper()).value();
                    yield new RangeBounds(Optional.of(low), true, Optional.of(high), true);
                }
                case Condition.BeginsWith beginsWith -> {
                    AttrValue prefix = ((Operand.Value) beginsWith.prefix()).value();
                    Optional<AttrValue> successor = prefix instanceof AttrValue.S s ? successor(s.value()).map(AttrValue.S::new) : Optional.empty();
                    yield new RangeBounds(Optional.of(prefix), true, successor, false);
                }
                default -> RangeBounds.NONE;
            };
        }

        private static Condition.Comparator flip(Condition.Comparator comparator) {
            return switch (comparator) {
                case LT -> Condition.Comparator.GT;
                case LE -> Condition.Comparator.GE;
                case GT -> Condition.Comparator.LT;
                case GE -> Condition.Comparator.LE;
                default -> comparator;
            };
        }

        /** The least string greater than every string that starts with {@code prefix}, if there is one. */
        private static Optional<String> successor(String prefix) {
            int[] codePoints = prefix.codePoints().toArray();
            for (int i = codePoints.length - 1; i >= 0; i--) {
                int next = codePoints[i] + 1;
                if (next >= Character.MIN_SURROGATE && next <= Character.MAX_SURROGATE) {
                    next = Character.MAX_SURROGATE + 1;
                }
                if (next <= Character.MAX_CODE_POINT) {
                    StringBuilder text = new StringBuilder();
                    for (int j = 0; j < i; j++) {
                        text.appendCodePoint(codePoints[j]);
                    }
                    return Optional.of(text.appendCodePoint(next).toString());
                }
            }
            return Optional.empty();
        }

        boolean matchesRange(Map<String, AttrValue> item) {
            if (range.isEmpty()) {
                return true;
            }
            return Evaluator.test(range.get(), item, ExpressionKind.KEY_CONDITION);
        }
    }
}
