// `python -m torch.utils.collect_env` (formats.md 6.1): "Key: value" lines
// in a template whose field set changed across torch releases, so every key
// is optional and unknown keys are skipped. Two values span lines after an
// empty value: the GPU list ("GPU 0: ..." per line, ended by a blank line)
// and cuDNN's "Probably one of the following:" path list.
#include <cstring>

#include "parse/version/package_names.h"
#include "parse/version/report_readers.h"
#include "parse/version/version_text.h"

namespace casefile::version {
namespace {

const char* const kSource = kSourceCollectEnv;

// "GPU 0: NVIDIA H100 80GB HBM3" -> index "0", name; false for other text.
bool SplitGpuEntry(std::string_view text, std::string_view* index, std::string_view* name) {
  if (!text.starts_with("GPU ")) return false;
  size_t i = 4;
  while (i < text.size() && StartsWithDigit(text.substr(i))) ++i;
  if (i == 4 || i >= text.size() || text[i] != ':') return false;
  *index = text.substr(4, i - 4);
  std::string_view n = Trim(text.substr(i + 1));
  // A UUID would only be there if collect_env had not removed it.
  const size_t uuid = n.find(" (UUID:");
  if (uuid != std::string_view::npos) n = TrimRight(n.substr(0, uuid));
  *name = n;
  return !n.empty();
}

bool IsPathStart(std::string_view text) {
  return text.starts_with("/") || (text.size() > 2 && text[1] == ':' && text[2] == '\\');
}

class CollectEnvReader final : public ReportReader {
 public:
  explicit CollectEnvReader(const FactOut* out) : out_(*out) {}

  void Begin(std::string_view) override { End(); }
  void Line(int64_t line_no, std::string_view text) override;
  void End() override {
    EndCudnnList();
    mode_ = Mode::kFields;
  }
  size_t HeldBytes() const override { return cudnn_fallback_.HeldBytes(); }

 private:
  enum class Mode { kFields, kGpuList, kCudnnList, kCpu };

  bool GpuListLine(int64_t line_no, std::string_view text);
  bool CudnnListLine(int64_t line_no, std::string_view text);
  void EndCudnnList();
  void Cudnn(int64_t line_no, std::string_view path);
  void Field(int64_t line_no, std::string_view key, std::string_view value);
  void Package(int64_t line_no, std::string_view text);
  void Versioned(int64_t line_no, const char* component, std::string_view version) {
    if (StartsWithDigit(version)) out_.Emit(line_no, component, version, "", kSource);
  }

  const FactOut& out_;
  Mode mode_ = Mode::kFields;
  bool cudnn_main_seen_ = false;
  // A sub-library's version (libcudnn_ops_infer.so.8.9.2), emitted at the
  // end of the list only when the list names no libcudnn.so itself.
  HeldFact cudnn_fallback_;
};

void CollectEnvReader::Line(int64_t line_no, std::string_view text) {
  if (mode_ == Mode::kGpuList) {
    if (GpuListLine(line_no, text)) return;
    mode_ = Mode::kFields;
  } else if (mode_ == Mode::kCudnnList) {
    if (CudnnListLine(line_no, text)) return;
    EndCudnnList();
    mode_ = Mode::kFields;
  } else if (mode_ == Mode::kCpu) {
    // lscpu's lines up to the blank line that ends the block (or the next
    // section's title, should a dump have lost the blank line).
    if (!text.empty() && !text.starts_with("Versions of relevant libraries")) return;
    mode_ = Mode::kFields;
  }
  if (text.empty()) return;
  if (text[0] == '[') {
    Package(line_no, text);
    return;
  }
  if (text == "CPU:") {
    mode_ = Mode::kCpu;
    return;
  }
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return;
  Field(line_no, Trim(text.substr(0, colon)), Trim(text.substr(colon + 1)));
}

bool CollectEnvReader::GpuListLine(int64_t line_no, std::string_view text) {
  std::string_view index, name;
  if (SplitGpuEntry(text, &index, &name)) {
    out_.Emit(line_no, kGpuName, name, std::string("GPU ").append(index), kSource);
    return true;
  }
  // nvidia-smi -L's indented MIG lines belong to the GPU above them.
  return !text.empty() && (text[0] == ' ' || text[0] == '\t');
}

bool CollectEnvReader::CudnnListLine(int64_t line_no, std::string_view text) {
  text = Trim(text);
  if (!IsPathStart(text)) return false;
  Cudnn(line_no, text);
  return true;
}

void CollectEnvReader::EndCudnnList() {
  if (mode_ == Mode::kCudnnList && !cudnn_main_seen_) cudnn_fallback_.Emit(out_, kSource);
  cudnn_fallback_.Clear();
  cudnn_main_seen_ = false;
}

// The version is in the library's file name: libcudnn.so.8.9.2 (Linux
// realpaths). Windows' cudnn64_8.dll names only a major: no fact.
void CollectEnvReader::Cudnn(int64_t line_no, std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!base.starts_with("libcudnn")) return;
  const size_t so = base.find(".so.");
  if (so == std::string_view::npos) return;
  const std::string_view version = DottedNumberPrefix(base.substr(so + 4));
  if (version.empty()) return;
  if (so == std::strlen("libcudnn")) {
    cudnn_main_seen_ = true;
    out_.Emit(line_no, kCudnn, version, path, kSource);
  } else if (mode_ == Mode::kCudnnList && !cudnn_main_seen_ && !cudnn_fallback_.set) {
    cudnn_fallback_.Hold(line_no, kCudnn, version, path);
  } else if (mode_ != Mode::kCudnnList) {
    out_.Emit(line_no, kCudnn, version, path, kSource);
  }
}

void CollectEnvReader::Field(int64_t line_no, std::string_view key, std::string_view value) {
  if (key == "GPU models and configuration") {
    if (value.empty()) {
      mode_ = Mode::kGpuList;
      return;
    }
    if (IsNoValue(value)) return;
    std::string_view index, name;
    if (SplitGpuEntry(value, &index, &name)) {
      out_.Emit(line_no, kGpuName, name, std::string("GPU ").append(index), kSource);
    } else {
      // ROCm and macOS builds print torch.cuda.get_device_name() of the
      // current device, device 0 unless the script changed it.
      out_.Emit(line_no, kGpuName, value, "GPU 0", kSource);
    }
    return;
  }
  if (key == "cuDNN version") {
    if (value.starts_with("Probably one of the following")) {
      mode_ = Mode::kCudnnList;
      cudnn_main_seen_ = false;
      cudnn_fallback_.Clear();
    } else if (IsPathStart(value)) {
      Cudnn(line_no, value);
    } else if (IsDottedNumber(value)) {
      out_.Emit(line_no, kCudnn, value, "", kSource);
    }
    return;
  }
  if (IsNoValue(value)) return;
  if (key == "PyTorch version") {
    Versioned(line_no, kTorch, FirstToken(value));
  } else if (key == "CUDA used to build PyTorch") {
    Versioned(line_no, kTorchCuda, FirstToken(value));
  } else if (key == "CUDA runtime version") {
    Versioned(line_no, kNvcc, FirstToken(value));
  } else if (key == "Nvidia driver version") {
    Versioned(line_no, kDriver, FirstToken(value));
  } else if (key == "Python version") {
    // "3.11.14 | packaged by conda-forge | (...)", "3.6 (64-bit runtime)".
    Versioned(line_no, kPython, FirstToken(value));
  } else if (key == "OS") {
    out_.Emit(line_no, kOs, value, "", kSource);
  } else if (key == "GCC version") {
    const std::string_view v = GccVersionAfterProgram(value);
    if (!v.empty()) out_.Emit(line_no, kGcc, v, "", kSource);
  } else if (key == "CMake version") {
    // "version 3.27.9" (the tail of `cmake --version`'s first line).
    const size_t at = value.find("version ");
    Versioned(line_no, kCmake,
              FirstToken(at == std::string_view::npos ? value : value.substr(at + 8)));
  } else if (key == "Libc version") {
    if (value.starts_with("glibc-")) Versioned(line_no, kGlibc, FirstToken(value.substr(6)));
  }
}

// "[pip3] numpy==1.26.4" (older "[pip]"), "[conda] numpy  1.26.4  py310h_0  defaults".
void CollectEnvReader::Package(int64_t line_no, std::string_view text) {
  const size_t close = text.find(']');
  if (close == std::string_view::npos) return;
  const std::string_view tag = text.substr(1, close - 1);
  const std::string_view rest = Trim(text.substr(close + 1));
  if (tag == "pip3" || tag == "pip") {
    std::string_view name, version;
    if (SplitPin(rest, &name, &version)) EmitPackage(out_, line_no, name, version, "", kSourcePip);
  } else if (tag == "conda") {
    size_t pos = 0;
    const std::string_view name = NextToken(rest, &pos);
    const std::string_view version = NextToken(rest, &pos);
    const std::string_view build = NextToken(rest, &pos);
    EmitCondaPackage(out_, line_no, name, version, build);
  }
}

}  // namespace

std::unique_ptr<ReportReader> MakeCollectEnvReader(const FactOut* out) {
  return std::make_unique<CollectEnvReader>(out);
}

}  // namespace casefile::version
