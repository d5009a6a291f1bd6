package dev.parley.functions.store;

import static dev.parley.functions.store.KeysTable.DEVICES;
import static dev.parley.functions.store.KeysTable.IDENTITY_KEY;
import static dev.parley.functions.store.KeysTable.PK;

import dev.parley.functions.retry.Backoff;
import dev.parley.model.DeviceAddress;
import dev.parley.model.DeviceId;
import dev.parley.model.UserId;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The list of a user's devices with keys, and their registration ids, kept on the user's identity item ({@link KeysTable#DEVICES}):
 * what a send's envelopes are checked against, in one small read per member (one BatchGetItem for a whole conversation), never
 * a query over the devices' keys. A device is listed once its keys are stored, and the list is emptied with the identity.
 */
final class KeyDeviceLists {
    private static final AttributeValue NO_DEVICES = AttributeValue.fromM(Map.of());
    private final DynamoDbClient dynamo;
    private final String table;
    private final Backoff backoff;

    KeyDeviceLists(DynamoDbClient dynamo, String table, Backoff backoff) {
        this.dynamo = dynamo;
        this.table = table;
        this.backoff = backoff;
    }

    /**
     * The account's identity key: its first (two first uploads at once both keep the first key and any device listed), or a
     * new one ({@code replacing}, a reinstall), when the list starts again empty, as the old devices' keys go.
     */
    void identity(UserId user, String identityKey, boolean replacing) {
        if (replacing) {
            dynamo.putItem(b -> b.tableName(table).item(KeysTable.withKey(user, KeysTable.IDENTITY_SORT,
                    Map.of(IDENTITY_KEY, AttributeValue.fromS(identityKey), DEVICES, NO_DEVICES))));
            return;
        }
        dynamo.updateItem(b -> b.tableName(table).key(KeysTable.key(user, KeysTable.IDENTITY_SORT))
                .updateExpression("SET #identity = if_not_exists(#identity, :identity), #devices = if_not_exists(#devices, :none)")
                .expressionAttributeNames(Map.of("#identity", IDENTITY_KEY, "#devices", DEVICES))
                .expressionAttributeValues(Map.of(":identity", AttributeValue.fromS(identityKey), ":none", NO_DEVICES)));
    }

    /** Lists the device, whose keys are stored, under its registration id. */
    void list(UserId user, DeviceId device, int registrationId) {
        try {
            setRegistration(user, device, registrationId);
        } catch (software.amazon.awssdk.services.dynamodb.model.DynamoDbException noList) {
            if (noList.statusCode() != 400 || noList instanceof software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException) {
                throw noList;
            }
            // An identity item from before device lists (the key directory's first days): given the list its devices' items make.
            Map<String, AttributeValue> listed = new HashMap<>();
            deviceItems(user).forEach((listedDevice, registration) -> listed.put(listedDevice.value(), AttributeValue.fromN(Integer.toString(registration))));
            dynamo.updateItem(b -> b.tableName(table).key(KeysTable.key(user, KeysTable.IDENTITY_SORT)).updateExpression("SET #devices = if_not_exists(#devices, :listed)")
                    .expressionAttributeNames(Map.of("#devices", DEVICES)).expressionAttributeValues(Map.of(":listed", AttributeValue.fromM(listed))));
            setRegistration(user, device, registrationId);
        }
    }

    private void setRegistration(UserId user, DeviceId device, int registrationId) {
        dynamo.updateItem(b -> b.tableName(table).key(KeysTable.key(user, KeysTable.IDENTITY_SORT)).updateExpression("SET #devices.#device = :registration")
                .expressionAttributeNames(Map.of("#devices", DEVICES, "#device", device.value()))
                .expressionAttributeValues(Map.of(":registration", AttributeValue.fromN(Integer.toString(registrationId)))));
    }

    /** The listed devices of these users, with their registration ids: consistent reads, so that a device listed a moment ago counts. */
    Map<DeviceAddress, Integer> devices(Collection<UserId> users) {
        List<Map<String, AttributeValue>> keys = users.stream().distinct().map(user -> KeysTable.key(user, KeysTable.IDENTITY_SORT)).toList();
        Map<DeviceAddress, Integer> devices = new HashMap<>();
        List<UserId> unlisted = new java.util.ArrayList<>();
        Batches.getAll(dynamo, backoff, table, keys, true, item -> {
            UserId user = UserId.of(item.get(PK).s().substring(KeysTable.partition("").length()));
            if (!item.containsKey(DEVICES)) {
                unlisted.add(user);
                return;
            }
            item.get(DEVICES).m().forEach((device, registration) ->
                    devices.put(new DeviceAddress(user, DeviceId.of(device)), Integer.parseInt(registration.n())));
        });
        // An identity item from before device lists: its devices are read from their own items, until an upload lists them.
        for (UserId user : unlisted) {
            deviceItems(user).forEach((device, registration) -> devices.put(new DeviceAddress(user, device), registration));
        }
        return devices;
    }

    /** The user's devices and registration ids as their own items hold them (a query, consistent): for identity items with no list. */
    private Map<DeviceId, Integer> deviceItems(UserId user) {
        Map<DeviceId, Integer> devices = new HashMap<>();
        KeysTable.itemsOf(dynamo, table, user, KeysTable.DEVICE_PREFIX).forEach(item -> devices.put(
                DeviceId.of(item.get(KeysTable.SK).s().substring(KeysTable.DEVICE_PREFIX.length())), Integer.parseInt(item.get(KeysTable.REGISTRATION_ID).n())));
        return devices;
    }
}
