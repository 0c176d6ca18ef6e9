#include "collectors/json_value.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/printable.h"
#include "common/text_scan.h"

namespace toporr::collectors {
namespace {

class Reader {
 public:
  Reader(std::string_view text, std::string_view file) : text_(text), file_(file) {}

  absl::StatusOr<JsonValue> Document() {
    JsonValue v;
    absl::Status s = Value(&v, 0);
    if (!s.ok()) return s;
    SkipBlanks();
    if (pos_ < text_.size()) return Error("text after the JSON document");
    return v;
  }

 private:
  // At the end of a document that ends in '\n' the cursor is on the line after the last one:
  // name the last line instead.
  absl::Status Error(std::string_view what) const {
    return LineError(file_, std::min(line_, LineCount(text_)), what);
  }

  void SkipBlanks() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
      } else if (c != ' ' && c != '\t' && c != '\r') {
        return;
      }
      ++pos_;
    }
  }

  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  absl::Status Value(JsonValue* v, int depth) {
    if (depth > kMaxJsonDepth) return Error(absl::StrCat("nested deeper than ", kMaxJsonDepth));
    SkipBlanks();
    v->line = line_;
    if (pos_ >= text_.size()) return Error("unexpected end of the document");
    const char c = text_[pos_];
    if (c == '{') return Object(v, depth);
    if (c == '[') return Array(v, depth);
    if (c == '"') {
      v->type = JsonValue::Type::kString;
      return String(&v->string);
    }
    if (Literal("true") || Literal("false")) {
      v->type = JsonValue::Type::kBool;
      v->boolean = c == 't';
      return absl::OkStatus();
    }
    if (Literal("null")) return absl::OkStatus();
    if (c == '-' || (c >= '0' && c <= '9')) return Number(v);
    return Error(absl::StrCat("unexpected character ", Quoted(std::string_view(&c, 1))));
  }

  absl::Status Number(JsonValue* v) {
    size_t end = pos_;
    while (end < text_.size() && std::strchr("+-0123456789.eE", text_[end]) != nullptr) ++end;
    if (end - pos_ > 64) return Error("number longer than 64 characters");
    const std::string token(text_.substr(pos_, end - pos_));
    // JSON's grammar, stricter than strtod: no leading '+', no "01", digits after '.'.
    size_t i = token[0] == '-' ? 1 : 0;
    bool ok =
        i < token.size() && token[i] >= '0' && token[i] <= '9' &&
        !(token[i] == '0' && i + 1 < token.size() && token[i + 1] >= '0' && token[i + 1] <= '9');
    const size_t dot = token.find('.');
    if (dot != std::string::npos)
      ok = ok && dot + 1 < token.size() && token[dot + 1] >= '0' && token[dot + 1] <= '9';
    char* parsed_end = nullptr;
    v->number = std::strtod(token.c_str(), &parsed_end);
    if (!ok || parsed_end != token.c_str() + token.size()) {
      return Error(absl::StrCat("bad number '", token, "'"));
    }
    v->type = JsonValue::Type::kNumber;
    pos_ = end;
    return absl::OkStatus();
  }

  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool Hex4(uint32_t* cp) {
    if (pos_ + 4 > text_.size()) return false;
    *cp = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = HexDigitValue(text_[pos_ + i]);
      if (d < 0) return false;
      *cp = *cp * 16 + d;
    }
    pos_ += 4;
    return true;
  }

  absl::Status String(std::string* out) {
    ++pos_;  // the opening quote
    while (true) {
      if (pos_ >= text_.size()) return Error("string not closed before the end");
      const char c = text_[pos_++];
      if (c == '"') return absl::OkStatus();
      if (static_cast<unsigned char>(c) < 0x20) return Error("control character in a string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return Error("string not closed before the end");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(&cp)) return Error("bad \\u escape");
          if (cp >= 0xD800 && cp < 0xDC00) {
            uint32_t low;
            if (!Literal("\\u") || !Hex4(&low) || low < 0xDC00 || low >= 0xE000) {
              return Error("unpaired UTF-16 surrogate in a \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            return Error("unpaired UTF-16 surrogate in a \\u escape");
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return Error(absl::StrCat("bad escape '\\", std::string(1, e), "'"));
      }
    }
  }

  absl::Status Array(JsonValue* v, int depth) {
    v->type = JsonValue::Type::kArray;
    ++pos_;
    SkipBlanks();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      v->items.emplace_back();
      absl::Status s = Value(&v->items.back(), depth + 1);
      if (!s.ok()) return s;
      SkipBlanks();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return absl::OkStatus();
      }
      return Error("expected ',' or ']' in an array");
    }
  }

  absl::Status Object(JsonValue* v, int depth) {
    v->type = JsonValue::Type::kObject;
    ++pos_;
    SkipBlanks();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return absl::OkStatus();
    }
    while (true) {
      SkipBlanks();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a member name");
      std::string key;
      absl::Status s = String(&key);
      if (!s.ok()) return s;
      if (v->Find(key) != nullptr) return Error(absl::StrCat("member ", Quoted(key), " twice"));
      SkipBlanks();
      if (pos_ >= text_.size() || text_[pos_] != ':') return Error("expected ':' after a name");
      ++pos_;
      v->members.emplace_back(std::move(key), JsonValue());
      s = Value(&v->members.back().second, depth + 1);
      if (!s.ok()) return s;
      SkipBlanks();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return absl::OkStatus();
      }
      return Error("expected ',' or '}' in an object");
    }
  }

  std::string_view text_;
  std::string_view file_;
  size_t pos_ = 0;
  long line_ = 1;
};

}  // namespace

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

const char* JsonTypeName(JsonValue::Type type) {
  switch (type) {
    case JsonValue::Type::kNull:
      return "null";
    case JsonValue::Type::kBool:
      return "boolean";
    case JsonValue::Type::kNumber:
      return "number";
    case JsonValue::Type::kString:
      return "string";
    case JsonValue::Type::kArray:
      return "array";
    case JsonValue::Type::kObject:
      return "object";
  }
  return "?";
}

absl::StatusOr<JsonValue> ParseJson(std::string_view text, std::string_view file_name) {
  return Reader(text, file_name).Document();
}

}  // namespace toporr::collectors
