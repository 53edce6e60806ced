// nvidia-smi (formats.md 6.5): the default table in the 89-character frame
// of 550+ drivers and the 79-character frame of older ones, CUDA "N/A",
// `nvidia-smi -q`, `nvidia-smi -L`, and `--query-gpu` CSV in any field
// order, with units, and without a header (known only from the command).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "version_test_util.h"

namespace casefile::version::test {
namespace {

constexpr const char* kPath = "nodes/n1/versions/nvidia_smi.txt";

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Lines 2.. of a table all have the frame's width (line 1 is the date).
void ExpectFrame(const std::vector<std::string>& lines, size_t width) {
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(lines[i].size(), width) << lines[i];
}

TEST(VersionNvidiaSmi, Table89) {
  const std::vector<std::string> lines = {
      "Tue Mar 12 10:15:02 2024       ",  // 1
      "+---------------------------------------------------------------------------------------+",
      "| NVIDIA-SMI 550.54.15            Driver Version: 550.54.15      CUDA Version: 12.4     |",
      "|---------------------------------------+------------------------+----------------------|",
      "| GPU  Name               Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
      "| Fan  Temp   Perf        Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |",
      "|                                       |                        |               MIG M. |",
      "|=======================================+========================+======================|",
      "|   0  NVIDIA H100 80GB HBM3        On  |   00000000:18:00.0 Off |                    0 |",
      "| N/A   29C    P0           69W /  700W |       4MiB /  81559MiB |      0%      Default |",
      "|                                       |                        |             Disabled |",
      "+---------------------------------------+------------------------+----------------------+",
      "|   1  NVIDIA H100 80GB HBM3        On  |   00000000:2A:00.0 Off |                    0 |",
      "| N/A   31C    P0           71W /  700W |       4MiB /  81559MiB |      0%      Default |",
      "|                                       |                        |             Disabled |",
      "+---------------------------------------+------------------------+----------------------+",
      "                                                                                         ",
      "+---------------------------------------------------------------------------------------+",
      "| Processes:                                                                            |",
      "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
      "|        ID   ID                                                             Usage      |",
      "|=======================================================================================|",
      "|    0   N/A  N/A     12345      C   python                                     1234MiB |",
      "+---------------------------------------------------------------------------------------+",
  };
  ExpectFrame(lines, 89);
  EXPECT_EQ(Extract(kPath, Join(lines)), (Facts{
                                             "3|driver|550.54.15||nvidia_smi",
                                             "3|driver_cuda|12.4||nvidia_smi",
                                             "9|gpu_name|NVIDIA H100 80GB HBM3|GPU 0|nvidia_smi",
                                             "13|gpu_name|NVIDIA H100 80GB HBM3|GPU 1|nvidia_smi",
                                         }));
}

TEST(VersionNvidiaSmi, Table79) {
  const std::vector<std::string> lines = {
      "Mon Feb  1 08:00:00 2021",  // 1
      "+-----------------------------------------------------------------------------+",
      "| NVIDIA-SMI 460.32.03    Driver Version: 460.32.03    CUDA Version: 11.2     |",
      "|-------------------------------+----------------------+----------------------+",
      "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
      "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
      "|                               |                      |               MIG M. |",
      "|===============================+======================+======================|",
      "|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |                    0 |",
      "| N/A   34C    P0    41W / 300W |      0MiB / 16160MiB |      0%      Default |",
      "|                               |                      |                  N/A |",
      "+-------------------------------+----------------------+----------------------+",
      "|   1  GeForce RTX 3090    Off  | 00000000:00:1F.0  On |                  N/A |",
      "| 30%   33C    P8    20W / 350W |      1MiB / 24268MiB |      0%      Default |",
      "|                               |                      |                  N/A |",
      "+-------------------------------+----------------------+----------------------+",
      "                                                                               ",
      "+-----------------------------------------------------------------------------+",
      "| Processes:                                                                  |",
      "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |",
      "|        ID   ID                                                   Usage      |",
      "|=============================================================================|",
      "|  No running processes found                                                 |",
      "+-----------------------------------------------------------------------------+",
  };
  ExpectFrame(lines, 79);
  EXPECT_EQ(Extract(kPath, Join(lines)), (Facts{
                                             "3|driver|460.32.03||nvidia_smi",
                                             "3|driver_cuda|11.2||nvidia_smi",
                                             "9|gpu_name|Tesla V100-SXM2...|GPU 0|nvidia_smi",
                                             "13|gpu_name|GeForce RTX 3090|GPU 1|nvidia_smi",
                                         }));
}

// A driver container without the CUDA user-mode library prints N/A; a
// table pasted without its date and with CRLF endings still reads.
TEST(VersionNvidiaSmi, CudaNotAvailable) {
  const std::string text =
      "+---------------------------------------------------------------------------------------+"
      "\r\n"
      "| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: N/A      "
      "|\r\n"
      "|   0  NVIDIA L4                   Off | 00000000:00:03.0 Off |                    0 |\r\n";
  EXPECT_EQ(Extract(kPath, text), (Facts{
                                      "2|driver|535.129.03||nvidia_smi",
                                      "3|gpu_name|NVIDIA L4|GPU 0|nvidia_smi",
                                  }));
}

TEST(VersionNvidiaSmi, QueryLog) {
  const std::string text =
      "\n"                                                                      // 1
      "==============NVSMI LOG==============\n"                                 // 2
      "\n"                                                                      // 3
      "Timestamp                                 : Tue Mar 12 10:15:02 2024\n"  // 4
      "Driver Version                            : 535.104.05\n"                // 5
      "CUDA Version                              : 12.2\n"                      // 6
      "\n"                                                                      // 7
      "Attached GPUs                             : 2\n"                         // 8
      "GPU 00000000:18:00.0\n"                                                  // 9
      "    Product Name                          : NVIDIA H100 80GB HBM3\n"     // 10
      "    Product Brand                         : NVIDIA\n"                    // 11
      "    Product Architecture                  : Hopper\n"                    // 12
      "    VBIOS Version                         : 96.00.74.00.01\n"            // 13
      "GPU 00000000:2A:00.0\n"                                                  // 14
      "    Product Name                          : NVIDIA H100 80GB HBM3\n";    // 15
  EXPECT_EQ(Extract(kPath, text), (Facts{
                                      "5|driver|535.104.05||nvidia_smi",
                                      "6|driver_cuda|12.2||nvidia_smi",
                                      "10|gpu_name|NVIDIA H100 80GB HBM3|GPU 0|nvidia_smi",
                                      "15|gpu_name|NVIDIA H100 80GB HBM3|GPU 1|nvidia_smi",
                                  }));
}

TEST(VersionNvidiaSmi, ListForm) {
  const std::string text =
      "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5f1c2d3e-0000-1111-2222-333344445555)\n"
      "  MIG 3g.40gb     Device  0: (UUID: MIG-0a1b2c3d-0000-1111-2222-333344445555)\n"
      "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-6a7b8c9d-0000-1111-2222-333344445555)\n";
  EXPECT_EQ(Extract(kPath, text), (Facts{
                                      "1|gpu_name|NVIDIA A100-SXM4-80GB|GPU 0|nvidia_smi",
                                      "3|gpu_name|NVIDIA A100-SXM4-80GB|GPU 1|nvidia_smi",
                                  }));
}

// Field order is the caller's; the driver is said once, not per GPU.
TEST(VersionNvidiaSmi, CsvAnyOrder) {
  const std::string text =
      "compute_cap, compute_mode, driver_version, name, index\n"
      "7.0, Default, 570.86.15, NVIDIA TITAN V, 0\n"
      "8.6, Default, 570.86.15, NVIDIA GeForce RTX 3090, 1\n";
  EXPECT_EQ(Extract("nodes/n1/versions/nvidia_smi_query.txt", text),
            (Facts{
                "2|gpu_compute_capability|7.0|GPU 0|nvidia_smi_csv",
                "2|driver|570.86.15||nvidia_smi_csv",
                "2|gpu_name|NVIDIA TITAN V|GPU 0|nvidia_smi_csv",
                "3|gpu_compute_capability|8.6|GPU 1|nvidia_smi_csv",
                "3|gpu_name|NVIDIA GeForce RTX 3090|GPU 1|nvidia_smi_csv",
            }));
}

// Units in the header; no index column: GPUs are numbered by row (a blank
// line is not a row).
TEST(VersionNvidiaSmi, CsvUnitsWithoutIndex) {
  const std::string text =
      "name, memory.total [MiB], compute_cap, pci.bus_id\r\n"
      "NVIDIA H100 80GB HBM3, 81559 MiB, 9.0, 00000000:18:00.0\r\n"
      "\r\n"
      "NVIDIA H100 80GB HBM3, 81559 MiB, [N/A], 00000000:2A:00.0\r\n";
  EXPECT_EQ(Extract("q.csv", text), (Facts{
                                        "2|gpu_name|NVIDIA H100 80GB HBM3|GPU 0|nvidia_smi_csv",
                                        "2|gpu_compute_capability|9.0|GPU 0|nvidia_smi_csv",
                                        "4|gpu_name|NVIDIA H100 80GB HBM3|GPU 1|nvidia_smi_csv",
                                    }));
}

// noheader: the columns are known from the command line that printed the
// rows, else not at all (the rows are skipped).
TEST(VersionNvidiaSmi, CsvNoHeader) {
  EXPECT_EQ(Extract("nvidia_smi_query.txt",
                    "NVIDIA H100 80GB HBM3, 9.0\n"
                    "NVIDIA H100 80GB HBM3, 9.0\n"),
            Facts{});
  const std::string text =
      "$ nvidia-smi --query-gpu=index,name,compute_cap --format=csv,noheader,nounits\n"  // 1
      "0, NVIDIA A10G, 8.6\n"                                                            // 2
      "1, NVIDIA A10G, 8.6\n"                                                            // 3
      "$ nvidia-smi --query-gpu=name,driver_version --format=csv\n"                      // 4
      "name, driver_version\n"                                                           // 5
      "NVIDIA A10G, 535.161.08\n";                                                       // 6
  EXPECT_EQ(Extract("versions.txt", text), (Facts{
                                               "2|gpu_name|NVIDIA A10G|GPU 0|nvidia_smi_csv",
                                               "2|gpu_compute_capability|8.6|GPU 0|nvidia_smi_csv",
                                               "3|gpu_name|NVIDIA A10G|GPU 1|nvidia_smi_csv",
                                               "3|gpu_compute_capability|8.6|GPU 1|nvidia_smi_csv",
                                               "6|gpu_name|NVIDIA A10G|GPU 0|nvidia_smi_csv",
                                               "6|driver|535.161.08||nvidia_smi_csv",
                                           }));
}

// Old drivers reject compute_cap: an error line, no header, no facts.
TEST(VersionNvidiaSmi, CsvFieldRejected) {
  EXPECT_EQ(Extract("nvidia_smi_query.txt",
                    "Field \"compute_cap\" is not a valid field to query.\n"
                    "\n"),
            Facts{});
}

}  // namespace
}  // namespace casefile::version::test
