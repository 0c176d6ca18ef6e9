// A small streaming JSON writer for command-line output (`--json`). Produces compact,
// valid JSON; strings are escaped per RFC 8259. Not thread-safe.
//
//   JsonWriter w(&out);
//   w.BeginObject(); w.Key("hops"); w.Int(3); w.EndObject();
#ifndef TOPORR_COMMON_JSON_WRITER_H_
#define TOPORR_COMMON_JSON_WRITER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace toporr {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream* out) : out_(out) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(std::string_view key);
  void String(std::string_view s);
  void Int(int64_t v);
  void Double(double v);  // non-finite values are written as null
  void Bool(bool v);
  void Null();

  // Shorthands for "key": value inside an object.
  void Field(std::string_view key, std::string_view v) {
    Key(key);
    String(v);
  }
  void Field(std::string_view key, const char* v) {
    Key(key);
    String(v);
  }
  void Field(std::string_view key, int64_t v) {
    Key(key);
    Int(v);
  }
  void Field(std::string_view key, int v) {
    Key(key);
    Int(v);
  }
  void Field(std::string_view key, double v) {
    Key(key);
    Double(v);
  }
  void Field(std::string_view key, bool v) {
    Key(key);
    Bool(v);
  }

 private:
  void BeforeValue();
  void WriteEscaped(std::string_view s);
  std::ostream* out_;
  // One entry per open container: true once it holds an element.
  std::vector<bool> has_element_;
  bool after_key_ = false;
};

}  // namespace toporr

#endif  // TOPORR_COMMON_JSON_WRITER_H_
