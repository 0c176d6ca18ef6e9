#include "common/json_writer.h"

#include <cmath>
#include <cstdio>

namespace toporr {

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back()) *out_ << ',';
    has_element_.back() = true;
  }
}

void JsonWriter::BeginObject() {
  BeforeValue();
  *out_ << '{';
  has_element_.push_back(false);
}

void JsonWriter::EndObject() {
  has_element_.pop_back();
  *out_ << '}';
}

void JsonWriter::BeginArray() {
  BeforeValue();
  *out_ << '[';
  has_element_.push_back(false);
}

void JsonWriter::EndArray() {
  has_element_.pop_back();
  *out_ << ']';
}

void JsonWriter::Key(std::string_view key) {
  BeforeValue();
  WriteEscaped(key);
  *out_ << ':';
  after_key_ = true;
}

void JsonWriter::String(std::string_view s) {
  BeforeValue();
  WriteEscaped(s);
}

void JsonWriter::WriteEscaped(std::string_view s) {
  *out_ << '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        *out_ << "\\\"";
        break;
      case '\\':
        *out_ << "\\\\";
        break;
      case '\n':
        *out_ << "\\n";
        break;
      case '\r':
        *out_ << "\\r";
        break;
      case '\t':
        *out_ << "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          *out_ << buf;
        } else {
          *out_ << c;
        }
    }
  }
  *out_ << '"';
}

void JsonWriter::Int(int64_t v) {
  BeforeValue();
  *out_ << v;
}

void JsonWriter::Double(double v) {
  BeforeValue();
  if (!std::isfinite(v)) {
    *out_ << "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  *out_ << buf;
}

void JsonWriter::Bool(bool v) {
  BeforeValue();
  *out_ << (v ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  *out_ << "null";
}

}  // namespace toporr
