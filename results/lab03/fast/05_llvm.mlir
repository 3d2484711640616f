module {
  llvm.func @free(!llvm.ptr)
  llvm.func @malloc(i64) -> !llvm.ptr
  llvm.func @matmul_bias_relu(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: !llvm.ptr, %arg8: !llvm.ptr, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i64, %arg13: i64, %arg14: !llvm.ptr, %arg15: !llvm.ptr, %arg16: i64, %arg17: i64, %arg18: i64, %arg19: !llvm.ptr, %arg20: !llvm.ptr, %arg21: i64, %arg22: i64, %arg23: i64, %arg24: i64, %arg25: i64) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %0 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %1 = llvm.insertvalue %arg19, %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %2 = llvm.insertvalue %arg20, %1[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %3 = llvm.insertvalue %arg21, %2[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %4 = llvm.insertvalue %arg22, %3[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %5 = llvm.insertvalue %arg24, %4[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %6 = llvm.insertvalue %arg23, %5[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %7 = llvm.insertvalue %arg25, %6[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %8 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %9 = llvm.insertvalue %arg14, %8[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %10 = llvm.insertvalue %arg15, %9[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %11 = llvm.insertvalue %arg16, %10[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %12 = llvm.insertvalue %arg17, %11[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %13 = llvm.insertvalue %arg18, %12[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %14 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %15 = llvm.insertvalue %arg7, %14[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.insertvalue %arg8, %15[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %17 = llvm.insertvalue %arg9, %16[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %18 = llvm.insertvalue %arg10, %17[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %19 = llvm.insertvalue %arg12, %18[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %20 = llvm.insertvalue %arg11, %19[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %21 = llvm.insertvalue %arg13, %20[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %22 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %23 = llvm.insertvalue %arg0, %22[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %24 = llvm.insertvalue %arg1, %23[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %25 = llvm.insertvalue %arg2, %24[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %26 = llvm.insertvalue %arg3, %25[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %27 = llvm.insertvalue %arg5, %26[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %28 = llvm.insertvalue %arg4, %27[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %29 = llvm.insertvalue %arg6, %28[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %30 = llvm.mlir.poison : !llvm.array<4 x vector<16xf32>>
    %31 = llvm.mlir.poison : !llvm.array<6 x vector<16xf32>>
    %32 = llvm.mlir.constant(5 : index) : i64
    %33 = llvm.mlir.constant(4 : index) : i64
    %34 = llvm.mlir.constant(3 : index) : i64
    %35 = llvm.mlir.constant(2 : index) : i64
    %36 = llvm.mlir.constant(255 : index) : i64
    %37 = llvm.mlir.constant(254 : index) : i64
    %38 = llvm.mlir.constant(253 : index) : i64
    %39 = llvm.mlir.constant(dense<0.000000e+00> : vector<16xf32>) : vector<16xf32>
    %40 = llvm.mlir.constant(dense<0.000000e+00> : vector<4x16xf32>) : !llvm.array<4 x vector<16xf32>>
    %41 = llvm.mlir.constant(dense<0.000000e+00> : vector<6x16xf32>) : !llvm.array<6 x vector<16xf32>>
    %42 = llvm.mlir.constant(1 : index) : i64
    %43 = llvm.mlir.constant(64 : index) : i64
    %44 = llvm.mlir.constant(252 : index) : i64
    %45 = llvm.mlir.constant(16 : index) : i64
    %46 = llvm.mlir.constant(6 : index) : i64
    %47 = llvm.mlir.constant(256 : index) : i64
    %48 = llvm.mlir.constant(0 : index) : i64
    %49 = llvm.mlir.constant(256 : index) : i64
    %50 = llvm.mlir.constant(256 : index) : i64
    %51 = llvm.mlir.constant(1 : index) : i64
    %52 = llvm.mlir.constant(65536 : index) : i64
    %53 = llvm.mlir.zero : !llvm.ptr
    %54 = llvm.getelementptr %53[%52] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %55 = llvm.ptrtoint %54 : !llvm.ptr to i64
    %56 = llvm.mlir.constant(64 : index) : i64
    %57 = llvm.add %55, %56 : i64
    %58 = llvm.call @malloc(%57) : (i64) -> !llvm.ptr
    %59 = llvm.ptrtoint %58 : !llvm.ptr to i64
    %60 = llvm.mlir.constant(1 : index) : i64
    %61 = llvm.sub %56, %60 : i64
    %62 = llvm.add %59, %61 : i64
    %63 = llvm.urem %62, %56 : i64
    %64 = llvm.sub %62, %63 : i64
    %65 = llvm.inttoptr %64 : i64 to !llvm.ptr
    %66 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %67 = llvm.insertvalue %58, %66[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %68 = llvm.insertvalue %65, %67[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %69 = llvm.mlir.constant(0 : index) : i64
    %70 = llvm.insertvalue %69, %68[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %71 = llvm.insertvalue %49, %70[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %72 = llvm.insertvalue %50, %71[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %73 = llvm.insertvalue %50, %72[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %74 = llvm.insertvalue %51, %73[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %75 = llvm.mlir.constant(256 : index) : i64
    %76 = llvm.mlir.constant(256 : index) : i64
    %77 = llvm.mlir.constant(1 : index) : i64
    %78 = llvm.mlir.constant(65536 : index) : i64
    %79 = llvm.mlir.zero : !llvm.ptr
    %80 = llvm.getelementptr %79[%78] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %81 = llvm.ptrtoint %80 : !llvm.ptr to i64
    %82 = llvm.mlir.constant(64 : index) : i64
    %83 = llvm.add %81, %82 : i64
    %84 = llvm.call @malloc(%83) : (i64) -> !llvm.ptr
    %85 = llvm.ptrtoint %84 : !llvm.ptr to i64
    %86 = llvm.mlir.constant(1 : index) : i64
    %87 = llvm.sub %82, %86 : i64
    %88 = llvm.add %85, %87 : i64
    %89 = llvm.urem %88, %82 : i64
    %90 = llvm.sub %88, %89 : i64
    %91 = llvm.inttoptr %90 : i64 to !llvm.ptr
    %92 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %93 = llvm.insertvalue %84, %92[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %94 = llvm.insertvalue %91, %93[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %95 = llvm.mlir.constant(0 : index) : i64
    %96 = llvm.insertvalue %95, %94[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %97 = llvm.insertvalue %75, %96[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %98 = llvm.insertvalue %76, %97[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %99 = llvm.insertvalue %76, %98[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %100 = llvm.insertvalue %77, %99[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.br ^bb1(%48 : i64)
  ^bb1(%101: i64):  // 2 preds: ^bb0, ^bb5
    %102 = llvm.icmp "slt" %101, %44 : i64
    llvm.cond_br %102, ^bb2, ^bb6
  ^bb2:  // pred: ^bb1
    llvm.br ^bb3(%48 : i64)
  ^bb3(%103: i64):  // 2 preds: ^bb2, ^bb4
    %104 = llvm.icmp "slt" %103, %47 : i64
    llvm.cond_br %104, ^bb4, ^bb5
  ^bb4:  // pred: ^bb3
    %105 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %106 = llvm.mlir.constant(256 : index) : i64
    %107 = llvm.mul %101, %106 : i64
    %108 = llvm.add %107, %103 : i64
    %109 = llvm.getelementptr %105[%108] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %109 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %110 = llvm.add %101, %42 : i64
    %111 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %112 = llvm.mlir.constant(256 : index) : i64
    %113 = llvm.mul %110, %112 : i64
    %114 = llvm.add %113, %103 : i64
    %115 = llvm.getelementptr %111[%114] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %115 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %116 = llvm.add %101, %35 : i64
    %117 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %118 = llvm.mlir.constant(256 : index) : i64
    %119 = llvm.mul %116, %118 : i64
    %120 = llvm.add %119, %103 : i64
    %121 = llvm.getelementptr %117[%120] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %121 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %122 = llvm.add %101, %34 : i64
    %123 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %124 = llvm.mlir.constant(256 : index) : i64
    %125 = llvm.mul %122, %124 : i64
    %126 = llvm.add %125, %103 : i64
    %127 = llvm.getelementptr %123[%126] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %127 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %128 = llvm.add %101, %33 : i64
    %129 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %130 = llvm.mlir.constant(256 : index) : i64
    %131 = llvm.mul %128, %130 : i64
    %132 = llvm.add %131, %103 : i64
    %133 = llvm.getelementptr %129[%132] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %133 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %134 = llvm.add %101, %32 : i64
    %135 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %136 = llvm.mlir.constant(256 : index) : i64
    %137 = llvm.mul %134, %136 : i64
    %138 = llvm.add %137, %103 : i64
    %139 = llvm.getelementptr %135[%138] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %139 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %140 = llvm.add %103, %45 : i64
    llvm.br ^bb3(%140 : i64)
  ^bb5:  // pred: ^bb3
    %141 = llvm.add %101, %46 : i64
    llvm.br ^bb1(%141 : i64)
  ^bb6:  // pred: ^bb1
    llvm.br ^bb7(%48 : i64)
  ^bb7(%142: i64):  // 2 preds: ^bb6, ^bb8
    %143 = llvm.icmp "slt" %142, %47 : i64
    llvm.cond_br %143, ^bb8, ^bb9
  ^bb8:  // pred: ^bb7
    %144 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %145 = llvm.mlir.constant(256 : index) : i64
    %146 = llvm.mul %44, %145 : i64
    %147 = llvm.add %146, %142 : i64
    %148 = llvm.getelementptr %144[%147] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %148 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %149 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %150 = llvm.mlir.constant(256 : index) : i64
    %151 = llvm.mul %38, %150 : i64
    %152 = llvm.add %151, %142 : i64
    %153 = llvm.getelementptr %149[%152] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %153 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %154 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %155 = llvm.mlir.constant(256 : index) : i64
    %156 = llvm.mul %37, %155 : i64
    %157 = llvm.add %156, %142 : i64
    %158 = llvm.getelementptr %154[%157] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %158 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %159 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %160 = llvm.mlir.constant(256 : index) : i64
    %161 = llvm.mul %36, %160 : i64
    %162 = llvm.add %161, %142 : i64
    %163 = llvm.getelementptr %159[%162] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %39, %163 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %164 = llvm.add %142, %45 : i64
    llvm.br ^bb7(%164 : i64)
  ^bb9:  // pred: ^bb7
    llvm.br ^bb10(%48 : i64)
  ^bb10(%165: i64):  // 2 preds: ^bb9, ^bb26
    %166 = llvm.icmp "slt" %165, %33 : i64
    llvm.cond_br %166, ^bb11, ^bb27
  ^bb11:  // pred: ^bb10
    %167 = llvm.mul %165, %43 overflow<nsw> : i64
    %168 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %169 = llvm.extractvalue %100[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %170 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %171 = llvm.insertvalue %169, %168[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %172 = llvm.insertvalue %170, %171[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %173 = llvm.insertvalue %167, %172[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %174 = llvm.mlir.constant(256 : index) : i64
    %175 = llvm.insertvalue %174, %173[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %176 = llvm.mlir.constant(256 : index) : i64
    %177 = llvm.insertvalue %176, %175[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %178 = llvm.mlir.constant(64 : index) : i64
    %179 = llvm.insertvalue %178, %177[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %180 = llvm.mlir.constant(1 : index) : i64
    %181 = llvm.insertvalue %180, %179[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.br ^bb12(%48 : i64)
  ^bb12(%182: i64):  // 2 preds: ^bb11, ^bb19
    %183 = llvm.icmp "slt" %182, %44 : i64
    llvm.cond_br %183, ^bb13, ^bb20
  ^bb13:  // pred: ^bb12
    llvm.br ^bb14(%48 : i64)
  ^bb14(%184: i64):  // 2 preds: ^bb13, ^bb18
    %185 = llvm.icmp "slt" %184, %43 : i64
    llvm.cond_br %185, ^bb15, ^bb19
  ^bb15:  // pred: ^bb14
    %186 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %187 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %188 = llvm.getelementptr %186[%187] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %189 = llvm.mlir.constant(256 : index) : i64
    %190 = llvm.mul %182, %189 : i64
    %191 = llvm.add %190, %184 : i64
    %192 = llvm.getelementptr %188[%191] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %193 = llvm.load %192 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %194 = llvm.add %182, %42 : i64
    %195 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %196 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %197 = llvm.getelementptr %195[%196] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %198 = llvm.mlir.constant(256 : index) : i64
    %199 = llvm.mul %194, %198 : i64
    %200 = llvm.add %199, %184 : i64
    %201 = llvm.getelementptr %197[%200] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %202 = llvm.load %201 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %203 = llvm.add %182, %35 : i64
    %204 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %205 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %206 = llvm.getelementptr %204[%205] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %207 = llvm.mlir.constant(256 : index) : i64
    %208 = llvm.mul %203, %207 : i64
    %209 = llvm.add %208, %184 : i64
    %210 = llvm.getelementptr %206[%209] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %211 = llvm.load %210 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %212 = llvm.add %182, %34 : i64
    %213 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %214 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %215 = llvm.getelementptr %213[%214] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %216 = llvm.mlir.constant(256 : index) : i64
    %217 = llvm.mul %212, %216 : i64
    %218 = llvm.add %217, %184 : i64
    %219 = llvm.getelementptr %215[%218] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %220 = llvm.load %219 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %221 = llvm.add %182, %33 : i64
    %222 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %223 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %224 = llvm.getelementptr %222[%223] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %225 = llvm.mlir.constant(256 : index) : i64
    %226 = llvm.mul %221, %225 : i64
    %227 = llvm.add %226, %184 : i64
    %228 = llvm.getelementptr %224[%227] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %229 = llvm.load %228 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %230 = llvm.add %182, %32 : i64
    %231 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %232 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %233 = llvm.getelementptr %231[%232] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %234 = llvm.mlir.constant(256 : index) : i64
    %235 = llvm.mul %230, %234 : i64
    %236 = llvm.add %235, %184 : i64
    %237 = llvm.getelementptr %233[%236] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %238 = llvm.load %237 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %239 = llvm.insertvalue %193, %31[0] : !llvm.array<6 x vector<16xf32>> 
    %240 = llvm.insertvalue %202, %239[1] : !llvm.array<6 x vector<16xf32>> 
    %241 = llvm.insertvalue %211, %240[2] : !llvm.array<6 x vector<16xf32>> 
    %242 = llvm.insertvalue %220, %241[3] : !llvm.array<6 x vector<16xf32>> 
    %243 = llvm.insertvalue %229, %242[4] : !llvm.array<6 x vector<16xf32>> 
    %244 = llvm.insertvalue %238, %243[5] : !llvm.array<6 x vector<16xf32>> 
    llvm.br ^bb16(%48, %244 : i64, !llvm.array<6 x vector<16xf32>>)
  ^bb16(%245: i64, %246: !llvm.array<6 x vector<16xf32>>):  // 2 preds: ^bb15, ^bb17
    %247 = llvm.icmp "slt" %245, %47 : i64
    llvm.cond_br %247, ^bb17, ^bb18
  ^bb17:  // pred: ^bb16
    %248 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %249 = llvm.mlir.constant(256 : index) : i64
    %250 = llvm.mul %182, %249 : i64
    %251 = llvm.add %250, %245 : i64
    %252 = llvm.getelementptr %248[%251] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %253 = llvm.load %252 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %254 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %255 = llvm.mlir.constant(256 : index) : i64
    %256 = llvm.mul %194, %255 : i64
    %257 = llvm.add %256, %245 : i64
    %258 = llvm.getelementptr %254[%257] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %259 = llvm.load %258 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %260 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %261 = llvm.mlir.constant(256 : index) : i64
    %262 = llvm.mul %203, %261 : i64
    %263 = llvm.add %262, %245 : i64
    %264 = llvm.getelementptr %260[%263] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %265 = llvm.load %264 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %266 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %267 = llvm.mlir.constant(256 : index) : i64
    %268 = llvm.mul %212, %267 : i64
    %269 = llvm.add %268, %245 : i64
    %270 = llvm.getelementptr %266[%269] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %271 = llvm.load %270 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %272 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %273 = llvm.mlir.constant(256 : index) : i64
    %274 = llvm.mul %221, %273 : i64
    %275 = llvm.add %274, %245 : i64
    %276 = llvm.getelementptr %272[%275] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %277 = llvm.load %276 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %278 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %279 = llvm.mlir.constant(256 : index) : i64
    %280 = llvm.mul %230, %279 : i64
    %281 = llvm.add %280, %245 : i64
    %282 = llvm.getelementptr %278[%281] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %283 = llvm.load %282 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %284 = llvm.mul %165, %43 overflow<nsw> : i64
    %285 = llvm.add %284, %184 : i64
    %286 = llvm.extractvalue %21[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %287 = llvm.mlir.constant(256 : index) : i64
    %288 = llvm.mul %245, %287 : i64
    %289 = llvm.add %288, %285 : i64
    %290 = llvm.getelementptr %286[%289] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %291 = llvm.load %290 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %292 = llvm.mlir.constant(0 : i64) : i64
    %293 = llvm.extractelement %253[%292 : i64] : vector<1xf32>
    %294 = llvm.mlir.poison : vector<16xf32>
    %295 = llvm.mlir.constant(0 : i32) : i32
    %296 = llvm.insertelement %293, %294[%295 : i32] : vector<16xf32>
    %297 = llvm.shufflevector %296, %294 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %298 = llvm.extractvalue %246[0] : !llvm.array<6 x vector<16xf32>> 
    %299 = llvm.intr.fmuladd(%297, %291, %298) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %300 = llvm.mlir.constant(0 : i64) : i64
    %301 = llvm.extractelement %259[%300 : i64] : vector<1xf32>
    %302 = llvm.mlir.poison : vector<16xf32>
    %303 = llvm.mlir.constant(0 : i32) : i32
    %304 = llvm.insertelement %301, %302[%303 : i32] : vector<16xf32>
    %305 = llvm.shufflevector %304, %302 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %306 = llvm.extractvalue %246[1] : !llvm.array<6 x vector<16xf32>> 
    %307 = llvm.intr.fmuladd(%305, %291, %306) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %308 = llvm.mlir.constant(0 : i64) : i64
    %309 = llvm.extractelement %265[%308 : i64] : vector<1xf32>
    %310 = llvm.mlir.poison : vector<16xf32>
    %311 = llvm.mlir.constant(0 : i32) : i32
    %312 = llvm.insertelement %309, %310[%311 : i32] : vector<16xf32>
    %313 = llvm.shufflevector %312, %310 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %314 = llvm.extractvalue %246[2] : !llvm.array<6 x vector<16xf32>> 
    %315 = llvm.intr.fmuladd(%313, %291, %314) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %316 = llvm.mlir.constant(0 : i64) : i64
    %317 = llvm.extractelement %271[%316 : i64] : vector<1xf32>
    %318 = llvm.mlir.poison : vector<16xf32>
    %319 = llvm.mlir.constant(0 : i32) : i32
    %320 = llvm.insertelement %317, %318[%319 : i32] : vector<16xf32>
    %321 = llvm.shufflevector %320, %318 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %322 = llvm.extractvalue %246[3] : !llvm.array<6 x vector<16xf32>> 
    %323 = llvm.intr.fmuladd(%321, %291, %322) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %324 = llvm.mlir.constant(0 : i64) : i64
    %325 = llvm.extractelement %277[%324 : i64] : vector<1xf32>
    %326 = llvm.mlir.poison : vector<16xf32>
    %327 = llvm.mlir.constant(0 : i32) : i32
    %328 = llvm.insertelement %325, %326[%327 : i32] : vector<16xf32>
    %329 = llvm.shufflevector %328, %326 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %330 = llvm.extractvalue %246[4] : !llvm.array<6 x vector<16xf32>> 
    %331 = llvm.intr.fmuladd(%329, %291, %330) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %332 = llvm.mlir.constant(0 : i64) : i64
    %333 = llvm.extractelement %283[%332 : i64] : vector<1xf32>
    %334 = llvm.mlir.poison : vector<16xf32>
    %335 = llvm.mlir.constant(0 : i32) : i32
    %336 = llvm.insertelement %333, %334[%335 : i32] : vector<16xf32>
    %337 = llvm.shufflevector %336, %334 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %338 = llvm.extractvalue %246[5] : !llvm.array<6 x vector<16xf32>> 
    %339 = llvm.intr.fmuladd(%337, %291, %338) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %340 = llvm.insertvalue %299, %31[0] : !llvm.array<6 x vector<16xf32>> 
    %341 = llvm.insertvalue %307, %340[1] : !llvm.array<6 x vector<16xf32>> 
    %342 = llvm.insertvalue %315, %341[2] : !llvm.array<6 x vector<16xf32>> 
    %343 = llvm.insertvalue %323, %342[3] : !llvm.array<6 x vector<16xf32>> 
    %344 = llvm.insertvalue %331, %343[4] : !llvm.array<6 x vector<16xf32>> 
    %345 = llvm.insertvalue %339, %344[5] : !llvm.array<6 x vector<16xf32>> 
    %346 = llvm.add %245, %42 : i64
    llvm.br ^bb16(%346, %345 : i64, !llvm.array<6 x vector<16xf32>>)
  ^bb18:  // pred: ^bb16
    %347 = llvm.extractvalue %246[0] : !llvm.array<6 x vector<16xf32>> 
    %348 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %349 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %350 = llvm.getelementptr %348[%349] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %351 = llvm.mlir.constant(256 : index) : i64
    %352 = llvm.mul %182, %351 : i64
    %353 = llvm.add %352, %184 : i64
    %354 = llvm.getelementptr %350[%353] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %347, %354 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %355 = llvm.extractvalue %246[1] : !llvm.array<6 x vector<16xf32>> 
    %356 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %357 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %358 = llvm.getelementptr %356[%357] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %359 = llvm.mlir.constant(256 : index) : i64
    %360 = llvm.mul %194, %359 : i64
    %361 = llvm.add %360, %184 : i64
    %362 = llvm.getelementptr %358[%361] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %355, %362 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %363 = llvm.extractvalue %246[2] : !llvm.array<6 x vector<16xf32>> 
    %364 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %365 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %366 = llvm.getelementptr %364[%365] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %367 = llvm.mlir.constant(256 : index) : i64
    %368 = llvm.mul %203, %367 : i64
    %369 = llvm.add %368, %184 : i64
    %370 = llvm.getelementptr %366[%369] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %363, %370 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %371 = llvm.extractvalue %246[3] : !llvm.array<6 x vector<16xf32>> 
    %372 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %373 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %374 = llvm.getelementptr %372[%373] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %375 = llvm.mlir.constant(256 : index) : i64
    %376 = llvm.mul %212, %375 : i64
    %377 = llvm.add %376, %184 : i64
    %378 = llvm.getelementptr %374[%377] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %371, %378 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %379 = llvm.extractvalue %246[4] : !llvm.array<6 x vector<16xf32>> 
    %380 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %381 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %382 = llvm.getelementptr %380[%381] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %383 = llvm.mlir.constant(256 : index) : i64
    %384 = llvm.mul %221, %383 : i64
    %385 = llvm.add %384, %184 : i64
    %386 = llvm.getelementptr %382[%385] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %379, %386 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %387 = llvm.extractvalue %246[5] : !llvm.array<6 x vector<16xf32>> 
    %388 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %389 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %390 = llvm.getelementptr %388[%389] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %391 = llvm.mlir.constant(256 : index) : i64
    %392 = llvm.mul %230, %391 : i64
    %393 = llvm.add %392, %184 : i64
    %394 = llvm.getelementptr %390[%393] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %387, %394 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %395 = llvm.add %184, %45 : i64
    llvm.br ^bb14(%395 : i64)
  ^bb19:  // pred: ^bb14
    %396 = llvm.add %182, %46 : i64
    llvm.br ^bb12(%396 : i64)
  ^bb20:  // pred: ^bb12
    llvm.br ^bb21(%48 : i64)
  ^bb21(%397: i64):  // 2 preds: ^bb20, ^bb25
    %398 = llvm.icmp "slt" %397, %43 : i64
    llvm.cond_br %398, ^bb22, ^bb26
  ^bb22:  // pred: ^bb21
    %399 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %400 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %401 = llvm.getelementptr %399[%400] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %402 = llvm.mlir.constant(256 : index) : i64
    %403 = llvm.mul %44, %402 : i64
    %404 = llvm.add %403, %397 : i64
    %405 = llvm.getelementptr %401[%404] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %406 = llvm.load %405 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %407 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %408 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %409 = llvm.getelementptr %407[%408] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %410 = llvm.mlir.constant(256 : index) : i64
    %411 = llvm.mul %38, %410 : i64
    %412 = llvm.add %411, %397 : i64
    %413 = llvm.getelementptr %409[%412] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %414 = llvm.load %413 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %415 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %416 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %417 = llvm.getelementptr %415[%416] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %418 = llvm.mlir.constant(256 : index) : i64
    %419 = llvm.mul %37, %418 : i64
    %420 = llvm.add %419, %397 : i64
    %421 = llvm.getelementptr %417[%420] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %422 = llvm.load %421 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %423 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %424 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %425 = llvm.getelementptr %423[%424] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %426 = llvm.mlir.constant(256 : index) : i64
    %427 = llvm.mul %36, %426 : i64
    %428 = llvm.add %427, %397 : i64
    %429 = llvm.getelementptr %425[%428] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %430 = llvm.load %429 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %431 = llvm.insertvalue %406, %30[0] : !llvm.array<4 x vector<16xf32>> 
    %432 = llvm.insertvalue %414, %431[1] : !llvm.array<4 x vector<16xf32>> 
    %433 = llvm.insertvalue %422, %432[2] : !llvm.array<4 x vector<16xf32>> 
    %434 = llvm.insertvalue %430, %433[3] : !llvm.array<4 x vector<16xf32>> 
    llvm.br ^bb23(%48, %434 : i64, !llvm.array<4 x vector<16xf32>>)
  ^bb23(%435: i64, %436: !llvm.array<4 x vector<16xf32>>):  // 2 preds: ^bb22, ^bb24
    %437 = llvm.icmp "slt" %435, %47 : i64
    llvm.cond_br %437, ^bb24, ^bb25
  ^bb24:  // pred: ^bb23
    %438 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %439 = llvm.mlir.constant(256 : index) : i64
    %440 = llvm.mul %44, %439 : i64
    %441 = llvm.add %440, %435 : i64
    %442 = llvm.getelementptr %438[%441] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %443 = llvm.load %442 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %444 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %445 = llvm.mlir.constant(256 : index) : i64
    %446 = llvm.mul %38, %445 : i64
    %447 = llvm.add %446, %435 : i64
    %448 = llvm.getelementptr %444[%447] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %449 = llvm.load %448 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %450 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %451 = llvm.mlir.constant(256 : index) : i64
    %452 = llvm.mul %37, %451 : i64
    %453 = llvm.add %452, %435 : i64
    %454 = llvm.getelementptr %450[%453] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %455 = llvm.load %454 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %456 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %457 = llvm.mlir.constant(256 : index) : i64
    %458 = llvm.mul %36, %457 : i64
    %459 = llvm.add %458, %435 : i64
    %460 = llvm.getelementptr %456[%459] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %461 = llvm.load %460 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %462 = llvm.mul %165, %43 overflow<nsw> : i64
    %463 = llvm.add %462, %397 : i64
    %464 = llvm.extractvalue %21[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %465 = llvm.mlir.constant(256 : index) : i64
    %466 = llvm.mul %435, %465 : i64
    %467 = llvm.add %466, %463 : i64
    %468 = llvm.getelementptr %464[%467] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %469 = llvm.load %468 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %470 = llvm.mlir.constant(0 : i64) : i64
    %471 = llvm.extractelement %443[%470 : i64] : vector<1xf32>
    %472 = llvm.mlir.poison : vector<16xf32>
    %473 = llvm.mlir.constant(0 : i32) : i32
    %474 = llvm.insertelement %471, %472[%473 : i32] : vector<16xf32>
    %475 = llvm.shufflevector %474, %472 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %476 = llvm.extractvalue %436[0] : !llvm.array<4 x vector<16xf32>> 
    %477 = llvm.intr.fmuladd(%475, %469, %476) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %478 = llvm.mlir.constant(0 : i64) : i64
    %479 = llvm.extractelement %449[%478 : i64] : vector<1xf32>
    %480 = llvm.mlir.poison : vector<16xf32>
    %481 = llvm.mlir.constant(0 : i32) : i32
    %482 = llvm.insertelement %479, %480[%481 : i32] : vector<16xf32>
    %483 = llvm.shufflevector %482, %480 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %484 = llvm.extractvalue %436[1] : !llvm.array<4 x vector<16xf32>> 
    %485 = llvm.intr.fmuladd(%483, %469, %484) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %486 = llvm.mlir.constant(0 : i64) : i64
    %487 = llvm.extractelement %455[%486 : i64] : vector<1xf32>
    %488 = llvm.mlir.poison : vector<16xf32>
    %489 = llvm.mlir.constant(0 : i32) : i32
    %490 = llvm.insertelement %487, %488[%489 : i32] : vector<16xf32>
    %491 = llvm.shufflevector %490, %488 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %492 = llvm.extractvalue %436[2] : !llvm.array<4 x vector<16xf32>> 
    %493 = llvm.intr.fmuladd(%491, %469, %492) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %494 = llvm.mlir.constant(0 : i64) : i64
    %495 = llvm.extractelement %461[%494 : i64] : vector<1xf32>
    %496 = llvm.mlir.poison : vector<16xf32>
    %497 = llvm.mlir.constant(0 : i32) : i32
    %498 = llvm.insertelement %495, %496[%497 : i32] : vector<16xf32>
    %499 = llvm.shufflevector %498, %496 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<16xf32> 
    %500 = llvm.extractvalue %436[3] : !llvm.array<4 x vector<16xf32>> 
    %501 = llvm.intr.fmuladd(%499, %469, %500) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %502 = llvm.insertvalue %477, %30[0] : !llvm.array<4 x vector<16xf32>> 
    %503 = llvm.insertvalue %485, %502[1] : !llvm.array<4 x vector<16xf32>> 
    %504 = llvm.insertvalue %493, %503[2] : !llvm.array<4 x vector<16xf32>> 
    %505 = llvm.insertvalue %501, %504[3] : !llvm.array<4 x vector<16xf32>> 
    %506 = llvm.add %435, %42 : i64
    llvm.br ^bb23(%506, %505 : i64, !llvm.array<4 x vector<16xf32>>)
  ^bb25:  // pred: ^bb23
    %507 = llvm.extractvalue %436[0] : !llvm.array<4 x vector<16xf32>> 
    %508 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %509 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %510 = llvm.getelementptr %508[%509] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %511 = llvm.mlir.constant(256 : index) : i64
    %512 = llvm.mul %44, %511 : i64
    %513 = llvm.add %512, %397 : i64
    %514 = llvm.getelementptr %510[%513] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %507, %514 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %515 = llvm.extractvalue %436[1] : !llvm.array<4 x vector<16xf32>> 
    %516 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %517 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %518 = llvm.getelementptr %516[%517] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %519 = llvm.mlir.constant(256 : index) : i64
    %520 = llvm.mul %38, %519 : i64
    %521 = llvm.add %520, %397 : i64
    %522 = llvm.getelementptr %518[%521] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %515, %522 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %523 = llvm.extractvalue %436[2] : !llvm.array<4 x vector<16xf32>> 
    %524 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %525 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %526 = llvm.getelementptr %524[%525] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %527 = llvm.mlir.constant(256 : index) : i64
    %528 = llvm.mul %37, %527 : i64
    %529 = llvm.add %528, %397 : i64
    %530 = llvm.getelementptr %526[%529] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %523, %530 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %531 = llvm.extractvalue %436[3] : !llvm.array<4 x vector<16xf32>> 
    %532 = llvm.extractvalue %181[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %533 = llvm.extractvalue %181[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %534 = llvm.getelementptr %532[%533] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %535 = llvm.mlir.constant(256 : index) : i64
    %536 = llvm.mul %36, %535 : i64
    %537 = llvm.add %536, %397 : i64
    %538 = llvm.getelementptr %534[%537] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %531, %538 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %539 = llvm.add %397, %45 : i64
    llvm.br ^bb21(%539 : i64)
  ^bb26:  // pred: ^bb21
    %540 = llvm.add %165, %42 : i64
    llvm.br ^bb10(%540 : i64)
  ^bb27:  // pred: ^bb10
    llvm.br ^bb28(%48 : i64)
  ^bb28(%541: i64):  // 2 preds: ^bb27, ^bb32
    %542 = llvm.icmp "slt" %541, %44 : i64
    llvm.cond_br %542, ^bb29, ^bb33
  ^bb29:  // pred: ^bb28
    llvm.br ^bb30(%48 : i64)
  ^bb30(%543: i64):  // 2 preds: ^bb29, ^bb31
    %544 = llvm.icmp "slt" %543, %47 : i64
    llvm.cond_br %544, ^bb31, ^bb32
  ^bb31:  // pred: ^bb30
    %545 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %546 = llvm.mlir.constant(256 : index) : i64
    %547 = llvm.mul %541, %546 : i64
    %548 = llvm.add %547, %543 : i64
    %549 = llvm.getelementptr %545[%548] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %550 = llvm.load %549 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %551 = llvm.add %541, %42 : i64
    %552 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %553 = llvm.mlir.constant(256 : index) : i64
    %554 = llvm.mul %551, %553 : i64
    %555 = llvm.add %554, %543 : i64
    %556 = llvm.getelementptr %552[%555] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %557 = llvm.load %556 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %558 = llvm.add %541, %35 : i64
    %559 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %560 = llvm.mlir.constant(256 : index) : i64
    %561 = llvm.mul %558, %560 : i64
    %562 = llvm.add %561, %543 : i64
    %563 = llvm.getelementptr %559[%562] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %564 = llvm.load %563 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %565 = llvm.add %541, %34 : i64
    %566 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %567 = llvm.mlir.constant(256 : index) : i64
    %568 = llvm.mul %565, %567 : i64
    %569 = llvm.add %568, %543 : i64
    %570 = llvm.getelementptr %566[%569] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %571 = llvm.load %570 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %572 = llvm.add %541, %33 : i64
    %573 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %574 = llvm.mlir.constant(256 : index) : i64
    %575 = llvm.mul %572, %574 : i64
    %576 = llvm.add %575, %543 : i64
    %577 = llvm.getelementptr %573[%576] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %578 = llvm.load %577 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %579 = llvm.add %541, %32 : i64
    %580 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %581 = llvm.mlir.constant(256 : index) : i64
    %582 = llvm.mul %579, %581 : i64
    %583 = llvm.add %582, %543 : i64
    %584 = llvm.getelementptr %580[%583] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %585 = llvm.load %584 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %586 = llvm.insertvalue %550, %31[0] : !llvm.array<6 x vector<16xf32>> 
    %587 = llvm.insertvalue %557, %586[1] : !llvm.array<6 x vector<16xf32>> 
    %588 = llvm.insertvalue %564, %587[2] : !llvm.array<6 x vector<16xf32>> 
    %589 = llvm.insertvalue %571, %588[3] : !llvm.array<6 x vector<16xf32>> 
    %590 = llvm.insertvalue %578, %589[4] : !llvm.array<6 x vector<16xf32>> 
    %591 = llvm.insertvalue %585, %590[5] : !llvm.array<6 x vector<16xf32>> 
    %592 = llvm.extractvalue %13[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %593 = llvm.getelementptr %592[%543] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %594 = llvm.load %593 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %595 = llvm.insertvalue %594, %31[0] : !llvm.array<6 x vector<16xf32>> 
    %596 = llvm.insertvalue %594, %595[1] : !llvm.array<6 x vector<16xf32>> 
    %597 = llvm.insertvalue %594, %596[2] : !llvm.array<6 x vector<16xf32>> 
    %598 = llvm.insertvalue %594, %597[3] : !llvm.array<6 x vector<16xf32>> 
    %599 = llvm.insertvalue %594, %598[4] : !llvm.array<6 x vector<16xf32>> 
    %600 = llvm.insertvalue %594, %599[5] : !llvm.array<6 x vector<16xf32>> 
    %601 = llvm.mlir.poison : !llvm.array<6 x vector<16xf32>>
    %602 = llvm.extractvalue %591[0] : !llvm.array<6 x vector<16xf32>> 
    %603 = llvm.extractvalue %600[0] : !llvm.array<6 x vector<16xf32>> 
    %604 = llvm.fadd %602, %603 : vector<16xf32>
    %605 = llvm.insertvalue %604, %601[0] : !llvm.array<6 x vector<16xf32>> 
    %606 = llvm.extractvalue %591[1] : !llvm.array<6 x vector<16xf32>> 
    %607 = llvm.extractvalue %600[1] : !llvm.array<6 x vector<16xf32>> 
    %608 = llvm.fadd %606, %607 : vector<16xf32>
    %609 = llvm.insertvalue %608, %605[1] : !llvm.array<6 x vector<16xf32>> 
    %610 = llvm.extractvalue %591[2] : !llvm.array<6 x vector<16xf32>> 
    %611 = llvm.extractvalue %600[2] : !llvm.array<6 x vector<16xf32>> 
    %612 = llvm.fadd %610, %611 : vector<16xf32>
    %613 = llvm.insertvalue %612, %609[2] : !llvm.array<6 x vector<16xf32>> 
    %614 = llvm.extractvalue %591[3] : !llvm.array<6 x vector<16xf32>> 
    %615 = llvm.extractvalue %600[3] : !llvm.array<6 x vector<16xf32>> 
    %616 = llvm.fadd %614, %615 : vector<16xf32>
    %617 = llvm.insertvalue %616, %613[3] : !llvm.array<6 x vector<16xf32>> 
    %618 = llvm.extractvalue %591[4] : !llvm.array<6 x vector<16xf32>> 
    %619 = llvm.extractvalue %600[4] : !llvm.array<6 x vector<16xf32>> 
    %620 = llvm.fadd %618, %619 : vector<16xf32>
    %621 = llvm.insertvalue %620, %617[4] : !llvm.array<6 x vector<16xf32>> 
    %622 = llvm.extractvalue %591[5] : !llvm.array<6 x vector<16xf32>> 
    %623 = llvm.extractvalue %600[5] : !llvm.array<6 x vector<16xf32>> 
    %624 = llvm.fadd %622, %623 : vector<16xf32>
    %625 = llvm.insertvalue %624, %621[5] : !llvm.array<6 x vector<16xf32>> 
    %626 = llvm.mlir.poison : !llvm.array<6 x vector<16xf32>>
    %627 = llvm.extractvalue %625[0] : !llvm.array<6 x vector<16xf32>> 
    %628 = llvm.extractvalue %41[0] : !llvm.array<6 x vector<16xf32>> 
    %629 = llvm.intr.maximum(%627, %628) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %630 = llvm.insertvalue %629, %626[0] : !llvm.array<6 x vector<16xf32>> 
    %631 = llvm.extractvalue %625[1] : !llvm.array<6 x vector<16xf32>> 
    %632 = llvm.extractvalue %41[1] : !llvm.array<6 x vector<16xf32>> 
    %633 = llvm.intr.maximum(%631, %632) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %634 = llvm.insertvalue %633, %630[1] : !llvm.array<6 x vector<16xf32>> 
    %635 = llvm.extractvalue %625[2] : !llvm.array<6 x vector<16xf32>> 
    %636 = llvm.extractvalue %41[2] : !llvm.array<6 x vector<16xf32>> 
    %637 = llvm.intr.maximum(%635, %636) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %638 = llvm.insertvalue %637, %634[2] : !llvm.array<6 x vector<16xf32>> 
    %639 = llvm.extractvalue %625[3] : !llvm.array<6 x vector<16xf32>> 
    %640 = llvm.extractvalue %41[3] : !llvm.array<6 x vector<16xf32>> 
    %641 = llvm.intr.maximum(%639, %640) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %642 = llvm.insertvalue %641, %638[3] : !llvm.array<6 x vector<16xf32>> 
    %643 = llvm.extractvalue %625[4] : !llvm.array<6 x vector<16xf32>> 
    %644 = llvm.extractvalue %41[4] : !llvm.array<6 x vector<16xf32>> 
    %645 = llvm.intr.maximum(%643, %644) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %646 = llvm.insertvalue %645, %642[4] : !llvm.array<6 x vector<16xf32>> 
    %647 = llvm.extractvalue %625[5] : !llvm.array<6 x vector<16xf32>> 
    %648 = llvm.extractvalue %41[5] : !llvm.array<6 x vector<16xf32>> 
    %649 = llvm.intr.maximum(%647, %648) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %650 = llvm.insertvalue %649, %646[5] : !llvm.array<6 x vector<16xf32>> 
    %651 = llvm.extractvalue %650[0] : !llvm.array<6 x vector<16xf32>> 
    %652 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %653 = llvm.mlir.constant(256 : index) : i64
    %654 = llvm.mul %541, %653 : i64
    %655 = llvm.add %654, %543 : i64
    %656 = llvm.getelementptr %652[%655] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %651, %656 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %657 = llvm.extractvalue %650[1] : !llvm.array<6 x vector<16xf32>> 
    %658 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %659 = llvm.mlir.constant(256 : index) : i64
    %660 = llvm.mul %551, %659 : i64
    %661 = llvm.add %660, %543 : i64
    %662 = llvm.getelementptr %658[%661] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %657, %662 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %663 = llvm.extractvalue %650[2] : !llvm.array<6 x vector<16xf32>> 
    %664 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %665 = llvm.mlir.constant(256 : index) : i64
    %666 = llvm.mul %558, %665 : i64
    %667 = llvm.add %666, %543 : i64
    %668 = llvm.getelementptr %664[%667] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %663, %668 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %669 = llvm.extractvalue %650[3] : !llvm.array<6 x vector<16xf32>> 
    %670 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %671 = llvm.mlir.constant(256 : index) : i64
    %672 = llvm.mul %565, %671 : i64
    %673 = llvm.add %672, %543 : i64
    %674 = llvm.getelementptr %670[%673] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %669, %674 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %675 = llvm.extractvalue %650[4] : !llvm.array<6 x vector<16xf32>> 
    %676 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %677 = llvm.mlir.constant(256 : index) : i64
    %678 = llvm.mul %572, %677 : i64
    %679 = llvm.add %678, %543 : i64
    %680 = llvm.getelementptr %676[%679] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %675, %680 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %681 = llvm.extractvalue %650[5] : !llvm.array<6 x vector<16xf32>> 
    %682 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %683 = llvm.mlir.constant(256 : index) : i64
    %684 = llvm.mul %579, %683 : i64
    %685 = llvm.add %684, %543 : i64
    %686 = llvm.getelementptr %682[%685] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %681, %686 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %687 = llvm.add %543, %45 : i64
    llvm.br ^bb30(%687 : i64)
  ^bb32:  // pred: ^bb30
    %688 = llvm.add %541, %46 : i64
    llvm.br ^bb28(%688 : i64)
  ^bb33:  // pred: ^bb28
    llvm.br ^bb34(%48 : i64)
  ^bb34(%689: i64):  // 2 preds: ^bb33, ^bb35
    %690 = llvm.icmp "slt" %689, %47 : i64
    llvm.cond_br %690, ^bb35, ^bb36
  ^bb35:  // pred: ^bb34
    %691 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %692 = llvm.mlir.constant(256 : index) : i64
    %693 = llvm.mul %44, %692 : i64
    %694 = llvm.add %693, %689 : i64
    %695 = llvm.getelementptr %691[%694] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %696 = llvm.load %695 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %697 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %698 = llvm.mlir.constant(256 : index) : i64
    %699 = llvm.mul %38, %698 : i64
    %700 = llvm.add %699, %689 : i64
    %701 = llvm.getelementptr %697[%700] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %702 = llvm.load %701 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %703 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %704 = llvm.mlir.constant(256 : index) : i64
    %705 = llvm.mul %37, %704 : i64
    %706 = llvm.add %705, %689 : i64
    %707 = llvm.getelementptr %703[%706] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %708 = llvm.load %707 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %709 = llvm.extractvalue %100[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %710 = llvm.mlir.constant(256 : index) : i64
    %711 = llvm.mul %36, %710 : i64
    %712 = llvm.add %711, %689 : i64
    %713 = llvm.getelementptr %709[%712] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %714 = llvm.load %713 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %715 = llvm.insertvalue %696, %30[0] : !llvm.array<4 x vector<16xf32>> 
    %716 = llvm.insertvalue %702, %715[1] : !llvm.array<4 x vector<16xf32>> 
    %717 = llvm.insertvalue %708, %716[2] : !llvm.array<4 x vector<16xf32>> 
    %718 = llvm.insertvalue %714, %717[3] : !llvm.array<4 x vector<16xf32>> 
    %719 = llvm.extractvalue %13[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %720 = llvm.getelementptr %719[%689] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %721 = llvm.load %720 {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
    %722 = llvm.insertvalue %721, %30[0] : !llvm.array<4 x vector<16xf32>> 
    %723 = llvm.insertvalue %721, %722[1] : !llvm.array<4 x vector<16xf32>> 
    %724 = llvm.insertvalue %721, %723[2] : !llvm.array<4 x vector<16xf32>> 
    %725 = llvm.insertvalue %721, %724[3] : !llvm.array<4 x vector<16xf32>> 
    %726 = llvm.mlir.poison : !llvm.array<4 x vector<16xf32>>
    %727 = llvm.extractvalue %718[0] : !llvm.array<4 x vector<16xf32>> 
    %728 = llvm.extractvalue %725[0] : !llvm.array<4 x vector<16xf32>> 
    %729 = llvm.fadd %727, %728 : vector<16xf32>
    %730 = llvm.insertvalue %729, %726[0] : !llvm.array<4 x vector<16xf32>> 
    %731 = llvm.extractvalue %718[1] : !llvm.array<4 x vector<16xf32>> 
    %732 = llvm.extractvalue %725[1] : !llvm.array<4 x vector<16xf32>> 
    %733 = llvm.fadd %731, %732 : vector<16xf32>
    %734 = llvm.insertvalue %733, %730[1] : !llvm.array<4 x vector<16xf32>> 
    %735 = llvm.extractvalue %718[2] : !llvm.array<4 x vector<16xf32>> 
    %736 = llvm.extractvalue %725[2] : !llvm.array<4 x vector<16xf32>> 
    %737 = llvm.fadd %735, %736 : vector<16xf32>
    %738 = llvm.insertvalue %737, %734[2] : !llvm.array<4 x vector<16xf32>> 
    %739 = llvm.extractvalue %718[3] : !llvm.array<4 x vector<16xf32>> 
    %740 = llvm.extractvalue %725[3] : !llvm.array<4 x vector<16xf32>> 
    %741 = llvm.fadd %739, %740 : vector<16xf32>
    %742 = llvm.insertvalue %741, %738[3] : !llvm.array<4 x vector<16xf32>> 
    %743 = llvm.mlir.poison : !llvm.array<4 x vector<16xf32>>
    %744 = llvm.extractvalue %742[0] : !llvm.array<4 x vector<16xf32>> 
    %745 = llvm.extractvalue %40[0] : !llvm.array<4 x vector<16xf32>> 
    %746 = llvm.intr.maximum(%744, %745) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %747 = llvm.insertvalue %746, %743[0] : !llvm.array<4 x vector<16xf32>> 
    %748 = llvm.extractvalue %742[1] : !llvm.array<4 x vector<16xf32>> 
    %749 = llvm.extractvalue %40[1] : !llvm.array<4 x vector<16xf32>> 
    %750 = llvm.intr.maximum(%748, %749) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %751 = llvm.insertvalue %750, %747[1] : !llvm.array<4 x vector<16xf32>> 
    %752 = llvm.extractvalue %742[2] : !llvm.array<4 x vector<16xf32>> 
    %753 = llvm.extractvalue %40[2] : !llvm.array<4 x vector<16xf32>> 
    %754 = llvm.intr.maximum(%752, %753) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %755 = llvm.insertvalue %754, %751[2] : !llvm.array<4 x vector<16xf32>> 
    %756 = llvm.extractvalue %742[3] : !llvm.array<4 x vector<16xf32>> 
    %757 = llvm.extractvalue %40[3] : !llvm.array<4 x vector<16xf32>> 
    %758 = llvm.intr.maximum(%756, %757) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
    %759 = llvm.insertvalue %758, %755[3] : !llvm.array<4 x vector<16xf32>> 
    %760 = llvm.extractvalue %759[0] : !llvm.array<4 x vector<16xf32>> 
    %761 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %762 = llvm.mlir.constant(256 : index) : i64
    %763 = llvm.mul %44, %762 : i64
    %764 = llvm.add %763, %689 : i64
    %765 = llvm.getelementptr %761[%764] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %760, %765 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %766 = llvm.extractvalue %759[1] : !llvm.array<4 x vector<16xf32>> 
    %767 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %768 = llvm.mlir.constant(256 : index) : i64
    %769 = llvm.mul %38, %768 : i64
    %770 = llvm.add %769, %689 : i64
    %771 = llvm.getelementptr %767[%770] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %766, %771 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %772 = llvm.extractvalue %759[2] : !llvm.array<4 x vector<16xf32>> 
    %773 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %774 = llvm.mlir.constant(256 : index) : i64
    %775 = llvm.mul %37, %774 : i64
    %776 = llvm.add %775, %689 : i64
    %777 = llvm.getelementptr %773[%776] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %772, %777 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %778 = llvm.extractvalue %759[3] : !llvm.array<4 x vector<16xf32>> 
    %779 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %780 = llvm.mlir.constant(256 : index) : i64
    %781 = llvm.mul %36, %780 : i64
    %782 = llvm.add %781, %689 : i64
    %783 = llvm.getelementptr %779[%782] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %778, %783 {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
    %784 = llvm.add %689, %45 : i64
    llvm.br ^bb34(%784 : i64)
  ^bb36:  // pred: ^bb34
    %785 = llvm.mlir.constant(1 : index) : i64
    %786 = llvm.extractvalue %74[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %787 = llvm.mul %785, %786 : i64
    %788 = llvm.extractvalue %74[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %789 = llvm.mul %787, %788 : i64
    %790 = llvm.mlir.zero : !llvm.ptr
    %791 = llvm.getelementptr %790[1] : (!llvm.ptr) -> !llvm.ptr, f32
    %792 = llvm.ptrtoint %791 : !llvm.ptr to i64
    %793 = llvm.mul %789, %792 : i64
    %794 = llvm.extractvalue %74[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %795 = llvm.extractvalue %74[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %796 = llvm.getelementptr %794[%795] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %797 = llvm.extractvalue %7[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %798 = llvm.extractvalue %7[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %799 = llvm.getelementptr %797[%798] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    "llvm.intr.memcpy"(%799, %796, %793) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
    %800 = llvm.extractvalue %74[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @free(%800) : (!llvm.ptr) -> ()
    %801 = llvm.extractvalue %100[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @free(%801) : (!llvm.ptr) -> ()
    llvm.return
  }
  llvm.func @_mlir_ciface_matmul_bias_relu(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr) attributes {lab03.abi = [memref<256x256xf32>, memref<256x256xf32>, memref<256xf32>, memref<256x256xf32>], lab03.num_results = 1 : i64, llvm.emit_c_interface} {
    %0 = llvm.load %arg0 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %1 = llvm.extractvalue %0[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %2 = llvm.extractvalue %0[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %3 = llvm.extractvalue %0[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %4 = llvm.extractvalue %0[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %5 = llvm.extractvalue %0[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %6 = llvm.extractvalue %0[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %7 = llvm.extractvalue %0[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %8 = llvm.load %arg1 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %9 = llvm.extractvalue %8[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %10 = llvm.extractvalue %8[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %11 = llvm.extractvalue %8[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %12 = llvm.extractvalue %8[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %13 = llvm.extractvalue %8[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %14 = llvm.extractvalue %8[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %15 = llvm.extractvalue %8[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %16 = llvm.load %arg2 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
    %17 = llvm.extractvalue %16[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %18 = llvm.extractvalue %16[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %19 = llvm.extractvalue %16[2] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %20 = llvm.extractvalue %16[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %21 = llvm.extractvalue %16[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %22 = llvm.load %arg3 : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %23 = llvm.extractvalue %22[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %24 = llvm.extractvalue %22[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %25 = llvm.extractvalue %22[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %26 = llvm.extractvalue %22[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %27 = llvm.extractvalue %22[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %28 = llvm.extractvalue %22[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %29 = llvm.extractvalue %22[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @matmul_bias_relu(%1, %2, %3, %4, %5, %6, %7, %9, %10, %11, %12, %13, %14, %15, %17, %18, %19, %20, %21, %23, %24, %25, %26, %27, %28, %29) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64) -> ()
    llvm.return
  }
}
