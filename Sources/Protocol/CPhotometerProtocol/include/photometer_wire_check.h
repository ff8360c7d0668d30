// Checks on unpacked protobuf-c messages that the generated code does not offer.
#ifndef PHOTOMETER_WIRE_CHECK_H
#define PHOTOMETER_WIRE_CHECK_H

#include <protobuf-c/protobuf-c.h>
#include <stdint.h>

/// Finds the first field, anywhere in `message` and the messages it contains, that the schema
/// does not know. Returns the full name of the message that holds it and stores its field number in
/// `field_number`, or returns NULL when every field is known.
const char *photometer_first_unknown_field(const ProtobufCMessage *message, uint32_t *field_number);

#endif
