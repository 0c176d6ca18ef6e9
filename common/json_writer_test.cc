#include "common/json_writer.h"

#include <cmath>
#include <sstream>

#include "gtest/gtest.h"

namespace toporr {
namespace {

TEST(JsonWriter, NestedContainersAndEscaping) {
  std::ostringstream out;
  JsonWriter w(&out);
  w.BeginObject();
  w.Field("name", "node\"01\"\n");
  w.Field("hops", 3);
  w.Key("list");
  w.BeginArray();
  w.Int(1);
  w.Double(2.5);
  w.BeginObject();
  w.Field("ok", true);
  w.EndObject();
  w.Null();
  w.EndArray();
  w.Field("nan", std::nan(""));
  w.Field("ctl", std::string_view("\x01", 1));
  w.EndObject();
  EXPECT_EQ(out.str(),
            "{\"name\":\"node\\\"01\\\"\\n\",\"hops\":3,\"list\":[1,2.5,{\"ok\":true},null],"
            "\"nan\":null,\"ctl\":\"\\u0001\"}");
}

}  // namespace
}  // namespace toporr
