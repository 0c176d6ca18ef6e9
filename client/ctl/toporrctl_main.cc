// toporrctl: query and administer toporrd. See `toporrctl help`.
#include <iostream>
#include <string>
#include <vector>

#include "client/ctl/dispatch.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return toporr::client::ctl::RunCtl(args, std::cout, std::cerr);
}
