package dev.parley.functions.store;

import static dev.parley.functions.store.ConnectionsTable.DEVICE;
import static dev.parley.functions.store.ConnectionsTable.DEVICE_ENDPOINT;
import static dev.parley.functions.store.ConnectionsTable.DEVICE_PLATFORM;
import static dev.parley.functions.store.ConnectionsTable.DEVICE_TOKEN;
import static dev.parley.functions.store.ConnectionsTable.PK;
import static dev.parley.functions.store.ConnectionsTable.TOKEN_ENDPOINT;
import static dev.parley.functions.store.ConnectionsTable.USER;

import dev.parley.model.ConversationId;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import dev.parley.model.WireEnum;
import dev.parley.ports.PushDevices;
import dev.parley.protocol.PushPlatform;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;

/**
 * Push registrations and mutes in the connections table ({@link ConnectionsTable}): each on the user's
 * {@code U#} item, which the fan-out reads anyway for the user's connections, so deciding a push adds
 * no read; and one {@code T#} item per token, naming the device that holds it.
 */
public final class DynamoPushDevices implements PushDevices {
    /** How many run-out push marks one mark write clears at most. */
    static final int MARKS_CLEARED_PER_WRITE = 20;
    private final DynamoDbClient dynamo;
    private final String table;

    public DynamoPushDevices(DynamoDbClient dynamo, String table) {
        this.dynamo = dynamo;
        this.table = table;
    }

    private static Map<String, AttributeValue> key(String pk) {
        return Map.of(PK, AttributeValue.fromS(pk));
    }

    @Override
    public Optional<PushDevice> holderOf(PushPlatform platform, String token) {
        return SdkErrors.translating("reading a token's holder", () -> {
            Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(key(ConnectionsTable.tokenKey(platform, token)))
                    .consistentRead(true)).item();
            if (item == null || item.isEmpty()) {
                return Optional.<PushDevice>empty();
            }
            return Optional.of(new PushDevice(UserId.of(item.get(USER).s()), DeviceId.of(item.get(DEVICE).s()), platform, token,
                    item.get(TOKEN_ENDPOINT).s()));
        });
    }

    @Override
    public Optional<PushDevice> registered(UserId user, DeviceId device) {
        String entry = ConnectionsTable.deviceEntryName(device);
        return SdkErrors.translating("reading a device's registration", () -> {
            Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user))).consistentRead(true)
                    .projectionExpression("#entry").expressionAttributeNames(Map.of("#entry", entry))).item();
            return item == null || !item.containsKey(entry) ? Optional.<PushDevice>empty() : Optional.of(device(user, device, item.get(entry)));
        });
    }

    /** A user item's device entry, read back. */
    static PushDevice device(UserId user, DeviceId device, AttributeValue entry) {
        Map<String, AttributeValue> fields = entry.m();
        PushPlatform platform = WireEnum.fromWireName(PushPlatform.class, fields.get(DEVICE_PLATFORM).s())
                .orElseThrow(() -> new IllegalStateException("device " + device + " of " + user + " has an unknown platform"));
        return new PushDevice(user, device, platform, fields.get(DEVICE_TOKEN).s(), fields.get(DEVICE_ENDPOINT).s());
    }

    @Override
    public boolean register(PushDevice device) {
        return SdkErrors.translating("registering a device for push", () -> {
            // The token's holder first, and only if it is nobody's or already this device's: a registration that fails
            // half-way leaves a holder whose device entry is missing (harmless: the next holder takes it over), never an
            // entry no holder record can take away, and of two racing registrations one holds the token.
            try {
                dynamo.putItem(b -> b.tableName(table).item(Map.of(PK, AttributeValue.fromS(ConnectionsTable.tokenKey(device.platform(), device.token())),
                                USER, AttributeValue.fromS(device.user().value()), DEVICE, AttributeValue.fromS(device.device().value()),
                                TOKEN_ENDPOINT, AttributeValue.fromS(device.endpoint())))
                        .conditionExpression("attribute_not_exists(#pk) OR (#user = :user AND #device = :device)")
                        .expressionAttributeNames(Map.of("#pk", PK, "#user", USER, "#device", DEVICE))
                        .expressionAttributeValues(Map.of(":user", AttributeValue.fromS(device.user().value()),
                                ":device", AttributeValue.fromS(device.device().value()))));
            } catch (ConditionalCheckFailedException heldByAnother) {
                return false;
            }
            dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(device.user())))
                    .updateExpression("SET #entry = :entry")
                    .expressionAttributeNames(Map.of("#entry", ConnectionsTable.deviceEntryName(device.device())))
                    .expressionAttributeValues(Map.of(":entry", AttributeValue.fromM(Map.of(
                            DEVICE_PLATFORM, AttributeValue.fromS(device.platform().wireName()), DEVICE_TOKEN, AttributeValue.fromS(device.token()),
                            DEVICE_ENDPOINT, AttributeValue.fromS(device.endpoint()))))));
            return true;
        });
    }

    @Override
    public boolean unregister(UserId user, DeviceId device) {
        String entry = ConnectionsTable.deviceEntryName(device);
        return SdkErrors.translating("unregistering a device", () -> {
            Map<String, AttributeValue> old = dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user)))
                    .updateExpression("REMOVE #entry").expressionAttributeNames(Map.of("#entry", entry))
                    .returnValues(ReturnValue.UPDATED_OLD)).attributes();
            if (old == null || !old.containsKey(entry)) {
                return false;
            }
            PushDevice was = device(user, device, old.get(entry));
            try {
                // Only while this device still holds the token: one that moved to another device keeps its new holder.
                dynamo.deleteItem(b -> b.tableName(table).key(key(ConnectionsTable.tokenKey(was.platform(), was.token())))
                        .conditionExpression("#user = :user AND #device = :device")
                        .expressionAttributeNames(Map.of("#user", USER, "#device", DEVICE))
                        .expressionAttributeValues(Map.of(":user", AttributeValue.fromS(user.value()), ":device", AttributeValue.fromS(device.value()))));
            } catch (ConditionalCheckFailedException heldByAnother) {
                // Nothing to do.
            }
            return true;
        });
    }

    @Override
    public void release(PushDevice holder) {
        Map<String, AttributeValue> device = Map.of(":user", AttributeValue.fromS(holder.user().value()),
                ":device", AttributeValue.fromS(holder.device().value()));
        SdkErrors.translating("taking a token from its holder", () -> {
            try {
                dynamo.deleteItem(b -> b.tableName(table).key(key(ConnectionsTable.tokenKey(holder.platform(), holder.token())))
                        .conditionExpression("#user = :user AND #device = :device")
                        .expressionAttributeNames(Map.of("#user", USER, "#device", DEVICE)).expressionAttributeValues(device));
            } catch (ConditionalCheckFailedException heldByAnother) {
                // Taken by another device meanwhile: its record stays.
            }
            try {
                dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(holder.user()))).updateExpression("REMOVE #entry")
                        .conditionExpression("#entry.#platform = :platform AND #entry.#token = :token")
                        .expressionAttributeNames(Map.of("#entry", ConnectionsTable.deviceEntryName(holder.device()), "#platform", DEVICE_PLATFORM,
                                "#token", DEVICE_TOKEN))
                        .expressionAttributeValues(Map.of(":platform", AttributeValue.fromS(holder.platform().wireName()),
                                ":token", AttributeValue.fromS(holder.token()))));
            } catch (ConditionalCheckFailedException registeredAnother) {
                // The device's registration is of another token (or there is none): it stays.
            }
        });
    }

    @Override
    public void mute(UserId user, ConversationId conversation, OptionalLong until) {
        String name = ConnectionsTable.muteName(conversation);
        SdkErrors.translating("muting a conversation", () -> {
            if (until.isPresent()) {
                dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user))).updateExpression("SET #mute = :until")
                        .expressionAttributeNames(Map.of("#mute", name))
                        .expressionAttributeValues(Map.of(":until", AttributeValue.fromN(Long.toString(until.getAsLong())))));
            } else {
                dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user))).updateExpression("REMOVE #mute")
                        .expressionAttributeNames(Map.of("#mute", name)));
            }
        });
    }

    @Override
    public boolean markPushed(UserId user, String markName, long now, long quietUntil, java.util.List<String> expiredMarks) {
        String mark = ConnectionsTable.pushMarkName(markName);
        Map<String, String> names = new java.util.HashMap<>(Map.of("#mark", mark));
        StringBuilder update = new StringBuilder("SET #mark = :quiet");
        // At most a few run-out marks a write, so the expression stays far below DynamoDB's 4 KB; the next pushes clear the rest.
        java.util.List<String> removed = expiredMarks.stream().map(ConnectionsTable::pushMarkName).filter(name -> !name.equals(mark)).distinct()
                .limit(MARKS_CLEARED_PER_WRITE).toList();
        for (int i = 0; i < removed.size(); i++) {
            update.append(i == 0 ? " REMOVE " : ", ").append("#old").append(i);
            names.put("#old" + i, removed.get(i));
        }
        return SdkErrors.translating("marking a push", () -> {
            try {
                dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user))).updateExpression(update.toString())
                        .conditionExpression("attribute_not_exists(#mark) OR #mark <= :now").expressionAttributeNames(names)
                        .expressionAttributeValues(Map.of(":quiet", AttributeValue.fromN(Long.toString(quietUntil)),
                                ":now", AttributeValue.fromN(Long.toString(now)))));
                return true;
            } catch (ConditionalCheckFailedException pushedAlready) {
                return false;
            }
        });
    }

    @Override
    public void releaseMark(UserId user, String markName, long quietUntil) {
        String mark = ConnectionsTable.pushMarkName(markName);
        SdkErrors.translating("releasing a push mark", () -> {
            try {
                dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user))).updateExpression("REMOVE #mark")
                        .conditionExpression("#mark = :quiet").expressionAttributeNames(Map.of("#mark", mark))
                        .expressionAttributeValues(Map.of(":quiet", AttributeValue.fromN(Long.toString(quietUntil)))));
            } catch (ConditionalCheckFailedException anotherPushMarkedSince) {
                // Its mark stands.
            }
        });
    }

    /**
     * A string set on the user item: ADD takes categories in, DELETE out, each atomic, so two devices changing different
     * categories at once lose neither change. DynamoDB refuses ADD and DELETE of one attribute in one expression, so a frame
     * that turns some on and some off is two writes; the last one's answer is the set as it is after both.
     */
    @Override
    public java.util.Set<String> setNotificationPush(UserId user, Map<String, Boolean> categories) {
        java.util.List<String> off = categories.entrySet().stream().filter(entry -> !entry.getValue()).map(Map.Entry::getKey).toList();
        java.util.List<String> on = categories.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
        return SdkErrors.translating("setting notification push", () -> {
            Optional<java.util.Set<String>> after = Optional.empty();
            if (!off.isEmpty()) {
                after = Optional.of(changePushOff(user, "ADD", off));
            }
            if (!on.isEmpty()) {
                after = Optional.of(changePushOff(user, "DELETE", on));
            }
            return after.orElseGet(() -> {
                Map<String, AttributeValue> item = dynamo.getItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user))).consistentRead(true)
                        .projectionExpression("#off").expressionAttributeNames(Map.of("#off", ConnectionsTable.PUSH_OFF_CATEGORIES))).item();
                return pushOff(item == null ? null : item.get(ConnectionsTable.PUSH_OFF_CATEGORIES));
            });
        });
    }

    private java.util.Set<String> changePushOff(UserId user, String action, java.util.List<String> categories) {
        Map<String, AttributeValue> after = dynamo.updateItem(b -> b.tableName(table).key(key(ConnectionsTable.userKey(user)))
                .updateExpression(action + " #off :categories").expressionAttributeNames(Map.of("#off", ConnectionsTable.PUSH_OFF_CATEGORIES))
                .expressionAttributeValues(Map.of(":categories", AttributeValue.fromSs(categories))).returnValues(ReturnValue.UPDATED_NEW)).attributes();
        return pushOff(after == null ? null : after.get(ConnectionsTable.PUSH_OFF_CATEGORIES));
    }

    /** The user item's set of categories push is off for, read back; none when the attribute is absent (an emptied set goes). */
    static java.util.Set<String> pushOff(AttributeValue set) {
        return set == null || !set.hasSs() ? java.util.Set.of() : java.util.Set.copyOf(set.ss());
    }
}
