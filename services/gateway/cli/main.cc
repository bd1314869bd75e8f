// aictl: the command-line client of assisted. See commands.h.
#include <unistd.h>

#include <iostream>

#include "services/gateway/cli/commands.h"

int main(int argc, char** argv) {
  return assisted::cli::Run(std::vector<std::string>(argv + 1, argv + argc),
                            assisted::config::ProcessEnvironment(),
                            {std::cout, std::cerr, isatty(STDERR_FILENO) == 1});
}
