package dev.parley.local.dynamodb.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.local.dynamodb.DynamoDbError;
import dev.parley.local.dynamodb.engine.Database;
import dev.parley.local.dynamodb.model.AttrValue;
import dev.parley.local.dynamodb.model.Item;
import dev.parley.local.dynamodb.server.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/** DynamoDB Streams: ListStreams, DescribeStream, GetShardIterator and GetRecords. */
public final class StreamOperations {
    static final Duration ITERATOR_LIFETIME = Duration.ofMinutes(15);
    static final int MAX_RECORDS = 1000;
    static final long MAX_RESPONSE_BYTES = 1024 * 1024;
    private static final Pattern STREAM_ARN = Pattern.compile("arn:aws:dynamodb:[^:]+:\\d{12}:table/[a-zA-Z0-9_.-]{3,255}/stream/.+");
    private static final Pattern SEQUENCE_NUMBER = Pattern.compile("\\d{21,40}");

    private final Database database;

    public StreamOperations(Database database) {
        this.database = database;
    }

    public ObjectNode listStreams(JsonNode request) {
        Optional<String> tableName = Json.optionalString(request, "TableName");
        int limit = Json.optionalInt(request, "Limit").orElse(100);
        if (limit < 1 || limit > 100) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + limit + "' at 'limit' failed to satisfy constraint: Member must have value "
                    + (limit < 1 ? "greater than or equal to 1" : "less than or equal to 100"));
        }
        Optional<String> start = Json.optionalString(request, "ExclusiveStartStreamArn");
        start.ifPresent(StreamOperations::requireWellFormedArn);
        return database.write(() -> {
            database.trimStreams();
            tableName.ifPresent(database::table);
            List<StreamLog> streams = database.streams().stream()
                    .filter(s -> tableName.map(s.tableName()::equals).orElse(true)).toList();
            int from = 0;
            if (start.isPresent()) {
                for (int i = 0; i < streams.size(); i++) {
                    if (streams.get(i).streamArn().equals(start.get())) {
                        from = i + 1;
                    }
                }
            }
            ObjectNode response = Json.NODES.objectNode();
            ArrayNode list = response.putArray("Streams");
            int end = Math.min(streams.size(), from + limit);
            for (StreamLog stream : streams.subList(from, end)) {
                list.addObject().put("StreamArn", stream.streamArn()).put("TableName", stream.tableName()).put("StreamLabel", stream.label());
            }
            if (end < streams.size()) {
                response.put("LastEvaluatedStreamArn", streams.get(end - 1).streamArn());
            }
            return response;
        });
    }

    public ObjectNode describeStream(JsonNode request) {
        String arn = Json.requiredString(request, "StreamArn");
        requireWellFormedArn(arn);
        Optional<String> exclusiveStartShardId = Json.optionalString(request, "ExclusiveStartShardId");
        return database.write(() -> {
            database.trimStreams();
            StreamLog stream = stream(arn);
            ObjectNode response = Json.NODES.objectNode();
            ObjectNode description = response.putObject("StreamDescription");
            description.put("StreamArn", stream.streamArn());
            description.put("StreamLabel", stream.label());
            description.put("StreamStatus", stream.enabled() ? "ENABLED" : "DISABLED");
            description.put("StreamViewType", stream.viewType());
            description.put("CreationRequestDateTime", stream.createdAtMillis() / 1000.0);
            description.put("TableName", stream.tableName());
            ArrayNode key = description.putArray("KeySchema");
            key.addObject().put("AttributeName", stream.keySchema().hashName()).put("KeyType", "HASH");
            stream.keySchema().rangeName().ifPresent(range -> key.addObject().put("AttributeName", range).put("KeyType", "RANGE"));
            ArrayNode shards = description.putArray("Shards");
            if (exclusiveStartShardId.map(id -> !id.equals(stream.shardId()) && id.compareTo(stream.shardId()) < 0).orElse(true)) {
                ObjectNode shard = shards.addObject();
                shard.put("ShardId", stream.shardId());
                ObjectNode range = shard.putObject("SequenceNumberRange");
                range.put("StartingSequenceNumber", stream.startingSequenceNumber());
                stream.endingSequenceNumber().ifPresent(ending -> range.put("EndingSequenceNumber", ending));
            }
            return response;
        });
    }

    public ObjectNode getShardIterator(JsonNode request) {
        String arn = Json.requiredString(request, "StreamArn");
        requireWellFormedArn(arn);
        String shardId = Json.requiredString(request, "ShardId");
        String type = Json.requiredString(request, "ShardIteratorType");
        Optional<String> sequenceNumber = Json.optionalString(request, "SequenceNumber");
        if (!Set.of("TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER").contains(type)) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + type
                    + "' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, LATEST, AT_SEQUENCE_NUMBER, TRIM_HORIZON]");
        }
        boolean needsSequence = type.endsWith("SEQUENCE_NUMBER");
        if (needsSequence && sequenceNumber.isEmpty()) {
            throw DynamoDbError.invalidParameter("SequenceNumber is required when ShardIteratorType is " + type);
        }
        if (!needsSequence && sequenceNumber.isPresent()) {
            throw DynamoDbError.invalidParameter("SequenceNumber must not be given when ShardIteratorType is " + type);
        }
        sequenceNumber.ifPresent(sequence -> {
            if (!SEQUENCE_NUMBER.matcher(sequence).matches()) {
                throw DynamoDbError.validation("1 validation error detected: Value '" + sequence
                        + "' at 'sequenceNumber' failed to satisfy constraint: Member must be a number of 21 to 40 digits");
            }
        });
        return database.write(() -> {
            database.trimStreams();
            StreamLog stream = stream(arn);
            if (!stream.shardId().equals(shardId)) {
                throw DynamoDbError.resourceNotFound("Requested resource not found: Shard does not exist");
            }
            long position = switch (type) {
                case "TRIM_HORIZON" -> stream.trimHorizon();
                case "LATEST" -> stream.end();
                default -> {
                    String sequence = sequenceNumber.orElseThrow();
                    if (StreamLog.compareSequence(sequence, stream.startingSequenceNumber()) < 0
                            || stream.endingSequenceNumber().map(end -> StreamLog.compareSequence(sequence, end) > 0).orElse(false)) {
                        if (stream.trimHorizon() > 0 && StreamLog.compareSequence(sequence, stream.startingSequenceNumber()) < 0) {
                            throw DynamoDbError.trimmedDataAccess("The data you are trying to access has been trimmed.");
                        }
                        throw DynamoDbError.validation("Invalid SequenceNumber for the shard");
                    }
                    yield stream.positionOf(sequence, type.equals("AFTER_SEQUENCE_NUMBER"));
                }
            };
            ObjectNode response = Json.NODES.objectNode();
            response.put("ShardIterator", iterator(stream, position));
            return response;
        });
    }

    public ObjectNode getRecords(JsonNode request) {
        String iteratorText = Json.requiredString(request, "ShardIterator");
        int limit = Json.optionalInt(request, "Limit").orElse(MAX_RECORDS);
        if (limit < 1) {
            throw DynamoDbError.validation("1 validation error detected: Value '" + limit
                    + "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1");
        }
        if (limit > MAX_RECORDS) {
            throw DynamoDbError.invalidParameter("Limit should be less than or equal to 1000");
        }
        Iterator iterator = Iterator.parse(iteratorText);
        return database.write(() -> {
            database.trimStreams();
            if (database.nowMillis() - iterator.issuedAtMillis() > ITERATOR_LIFETIME.toMillis()) {
                throw DynamoDbError.expiredIterator("The provided iterator exceeds the maximum age allowed.");
            }
            StreamLog stream = stream(iterator.streamArn());
            if (!stream.shardId().equals(iterator.shardId())) {
                throw DynamoDbError.validation("Invalid ShardIterator");
            }
            if (iterator.position() < stream.trimHorizon()) {
                throw DynamoDbError.trimmedDataAccess("The data you are trying to access has been trimmed.");
            }
            ObjectNode response = Json.NODES.objectNode();
            ArrayNode records = response.putArray("Records");
            long position = iterator.position();
            long bytes = 0;
            while (position < stream.end() && records.size() < limit) {
                StreamRecord record = stream.at(position);
                ObjectNode json = toJson(record, stream.viewType());
                long size = json.get("dynamodb").get("SizeBytes").asLong();
                if (!records.isEmpty() && bytes + size > MAX_RESPONSE_BYTES) {
                    break;
                }
                records.add(json);
                bytes += size;
                position++;
            }
            if (stream.enabled() || position < stream.end()) {
                response.put("NextShardIterator", iterator(stream, position));
            }
            return response;
        });
    }

    private StreamLog stream(String arn) {
        return database.stream(arn).orElseThrow(() -> DynamoDbError.resourceNotFound("Requested resource not found: Stream: " + arn + " not found"));
    }

    private static void requireWellFormedArn(String arn) {
        if (arn.length() < 37 || arn.length() > 1024 || !STREAM_ARN.matcher(arn).matches()) {
            throw DynamoDbError.validation("Invalid StreamArn: " + arn);
        }
    }

    /** A record as GetRecords gives it: the images the stream's view type shows, and their size. */
    static ObjectNode toJson(StreamRecord record, String viewType) {
        boolean showNew = viewType.equals("NEW_IMAGE") || viewType.equals("NEW_AND_OLD_IMAGES");
        boolean showOld = viewType.equals("OLD_IMAGE") || viewType.equals("NEW_AND_OLD_IMAGES");
        Optional<Map<String, AttrValue>> newImage = showNew ? record.newImage() : Optional.empty();
        Optional<Map<String, AttrValue>> oldImage = showOld ? record.oldImage() : Optional.empty();
        ObjectNode json = Json.NODES.objectNode();
        json.put("eventID", record.eventId());
        json.put("eventName", record.eventName());
        json.put("eventVersion", "1.1");
        json.put("eventSource", "aws:dynamodb");
        json.put("awsRegion", Database.REGION);
        ObjectNode dynamodb = json.putObject("dynamodb");
        dynamodb.put("ApproximateCreationDateTime", record.approximateCreationEpochSeconds());
        dynamodb.set("Keys", Json.writeItem(record.keys()));
        newImage.ifPresent(image -> dynamodb.set("NewImage", Json.writeItem(image)));
        oldImage.ifPresent(image -> dynamodb.set("OldImage", Json.writeItem(image)));
        dynamodb.put("SequenceNumber", record.sequenceNumber());
        dynamodb.put("SizeBytes", Item.sizeOf(record.keys()) + newImage.map(Item::sizeOf).orElse(0L) + oldImage.map(Item::sizeOf).orElse(0L));
        dynamodb.put("StreamViewType", viewType);
        if (record.byTtl()) {
            json.putObject("userIdentity").put("PrincipalId", "dynamodb.amazonaws.com").put("Type", "Service");
        }
        return json;
    }

    // ---- iterators -------------------------------------------------------------------------------

    private String iterator(StreamLog stream, long position) {
        String state = stream.shardId() + "|" + position + "|" + database.nowMillis();
        return stream.streamArn() + "|1|" + Base64.getUrlEncoder().withoutPadding().encodeToString(state.getBytes(StandardCharsets.UTF_8));
    }

    /** An iterator is a stateless position: the stream, the shard, the record to read next, and when it was issued. */
    private record Iterator(String streamArn, String shardId, long position, long issuedAtMillis) {
        static Iterator parse(String text) {
            try {
                int marker = text.lastIndexOf("|1|");
                String arn = text.substring(0, marker);
                String[] state = new String(Base64.getUrlDecoder().decode(text.substring(marker + 3)), StandardCharsets.UTF_8).split("\\|");
                if (state.length != 3) {
                    throw new IllegalArgumentException("bad state");
                }
                return new Iterator(arn, state[0], Long.parseLong(state[1]), Long.parseLong(state[2]));
            } catch (RuntimeException e) {
                throw DynamoDbError.validation("Invalid ShardIterator");
            }
        }
    }
}
