package dev.parley.protocol;

import dev.parley.model.WireEnum;

/** Mobile push services a device can register with: Firebase Cloud Messaging and Apple Push. */
public enum PushPlatform implements WireEnum {
    FCM,
    APNS
}
