#include "photometer_wire_check.h"

#include <stddef.h>

// Whether a field of a proto3 message is present: a oneof member only when the oneof's case
// names it; every other singular message field whenever its pointer is set.
static int is_present(const ProtobufCMessage *message, const ProtobufCFieldDescriptor *field) {
  if (field->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
    const uint32_t *oneof_case = (const uint32_t *)((const char *)message + field->quantifier_offset);
    return *oneof_case == field->id;
  }
  return 1;
}

const char *photometer_first_unknown_field(const ProtobufCMessage *message, uint32_t *field_number) {
  if (message == NULL) {
    return NULL;
  }
  if (message->n_unknown_fields > 0) {
    *field_number = message->unknown_fields[0].tag;
    return message->descriptor->name;
  }
  const ProtobufCMessageDescriptor *descriptor = message->descriptor;
  for (unsigned i = 0; i < descriptor->n_fields; i++) {
    const ProtobufCFieldDescriptor *field = &descriptor->fields[i];
    if (field->type != PROTOBUF_C_TYPE_MESSAGE || !is_present(message, field)) {
      continue;
    }
    const char *member = (const char *)message + field->offset;
    if (field->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t count = *(const size_t *)((const char *)message + field->quantifier_offset);
      ProtobufCMessage *const *items = *(ProtobufCMessage *const *const *)member;
      for (size_t j = 0; j < count; j++) {
        const char *found = photometer_first_unknown_field(items[j], field_number);
        if (found != NULL) {
          return found;
        }
      }
    } else {
      const char *found = photometer_first_unknown_field(*(ProtobufCMessage *const *)member, field_number);
      if (found != NULL) {
        return found;
      }
    }
  }
  return NULL;
}
