// A small strict JSON parser for the tests (RFC 8259 values; numbers as double): enough to check
// that a file a tool wrote is well-formed JSON and to read its fields. Throws std::runtime_error
// naming the offset of the first error.
#ifndef MXU_TESTS_WAVES_JSON_VALUE_H_
#define MXU_TESTS_WAVES_JSON_VALUE_H_

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mxu::testing {

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::map<std::string, JsonValue> object;

  const JsonValue& at(const std::string& key) const {
    const auto it = object.find(key);
    if (kind != Kind::kObject || it == object.end()) throw std::runtime_error("no key " + key);
    return it->second;
  }
  bool has(const std::string& key) const { return object.count(key) > 0; }
};

class JsonParser {
 public:
  static JsonValue Parse(const std::string& text) {
    JsonParser parser(text);
    JsonValue value = parser.Value();
    parser.Space();
    if (parser.pos_ != text.size()) parser.Fail("trailing characters");
    return value;
  }

 private:
  explicit JsonParser(const std::string& text) : text_(text) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw std::runtime_error("JSON error at offset " + std::to_string(pos_) + ": " + what);
  }
  void Space() {
    while (pos_ < text_.size() && std::strchr(" \t\r\n", text_[pos_]) && text_[pos_]) ++pos_;
  }
  char Peek() {
    Space();
    if (pos_ >= text_.size()) Fail("unexpected end");
    return text_[pos_];
  }
  void Expect(char c) {
    if (Peek() != c) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  void Literal(const char* word) {
    const std::string w(word);
    if (text_.compare(pos_, w.size(), w) != 0) Fail("bad literal");
    pos_ += w.size();
  }

  JsonValue Value() {
    JsonValue v;
    const char c = Peek();
    if (c == '{') {
      v.kind = JsonValue::Kind::kObject;
      ++pos_;
      if (Peek() == '}') {
        ++pos_;
        return v;
      }
      for (;;) {
        if (Peek() != '"') Fail("expected a key");
        const std::string key = String();
        Expect(':');
        if (!v.object.emplace(key, Value()).second) Fail("duplicate key " + key);
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        Expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = JsonValue::Kind::kArray;
      ++pos_;
      if (Peek() == ']') {
        ++pos_;
        return v;
      }
      for (;;) {
        v.array.push_back(Value());
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        Expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = JsonValue::Kind::kString;
      v.string = String();
    } else if (c == 't') {
      Literal("true");
      v.kind = JsonValue::Kind::kBool;
      v.boolean = true;
    } else if (c == 'f') {
      Literal("false");
      v.kind = JsonValue::Kind::kBool;
    } else if (c == 'n') {
      Literal("null");
    } else {
      v.kind = JsonValue::Kind::kNumber;
      v.number = Number();
    }
    return v;
  }

  std::string String() {
    ++pos_;  // the opening quote
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      const char c = text_[pos_++];
      if (static_cast<unsigned char>(c) < 0x20) Fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) Fail("unexpected end");
      const char e = text_[pos_++];
      if (e == 'u') {
        for (int i = 0; i < 4; ++i) {
          if (pos_ >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_++]))) {
            Fail("bad \\u escape");
          }
        }
        out += '?';
      } else if (std::strchr("\"\\/bfnrt", e) && e) {
        out += e;
      } else {
        Fail("bad escape");
      }
    }
    if (pos_ >= text_.size()) Fail("unterminated string");
    ++pos_;
    return out;
  }

  double Number() {
    // JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    const size_t start = pos_;
    const auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      if (pos_ == from) Fail("expected a digit");
    };
    if (text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else {
      digits();
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      digits();
    }
    return std::strtod(text_.substr(start, pos_ - start).c_str(), nullptr);
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace mxu::testing

#endif  // MXU_TESTS_WAVES_JSON_VALUE_H_
