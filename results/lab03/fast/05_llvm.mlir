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
    %30 = llvm.mlir.poison : !llvm.array<8 x vector<32xf32>>
    %31 = llvm.mlir.constant(7 : index) : i64
    %32 = llvm.mlir.constant(6 : index) : i64
    %33 = llvm.mlir.constant(5 : index) : i64
    %34 = llvm.mlir.constant(4 : index) : i64
    %35 = llvm.mlir.constant(3 : index) : i64
    %36 = llvm.mlir.constant(2 : index) : i64
    %37 = llvm.mlir.constant(dense<0.000000e+00> : vector<32xf32>) : vector<32xf32>
    %38 = llvm.mlir.constant(dense<0.000000e+00> : vector<8x32xf32>) : !llvm.array<8 x vector<32xf32>>
    %39 = llvm.mlir.constant(1 : index) : i64
    %40 = llvm.mlir.constant(32 : index) : i64
    %41 = llvm.mlir.constant(8 : index) : i64
    %42 = llvm.mlir.constant(256 : index) : i64
    %43 = llvm.mlir.constant(0 : index) : i64
    %44 = llvm.mlir.constant(256 : index) : i64
    %45 = llvm.mlir.constant(256 : index) : i64
    %46 = llvm.mlir.constant(1 : index) : i64
    %47 = llvm.mlir.constant(65536 : index) : i64
    %48 = llvm.mlir.zero : !llvm.ptr
    %49 = llvm.getelementptr %48[%47] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %50 = llvm.ptrtoint %49 : !llvm.ptr to i64
    %51 = llvm.mlir.constant(64 : index) : i64
    %52 = llvm.add %50, %51 : i64
    %53 = llvm.call @malloc(%52) : (i64) -> !llvm.ptr
    %54 = llvm.ptrtoint %53 : !llvm.ptr to i64
    %55 = llvm.mlir.constant(1 : index) : i64
    %56 = llvm.sub %51, %55 : i64
    %57 = llvm.add %54, %56 : i64
    %58 = llvm.urem %57, %51 : i64
    %59 = llvm.sub %57, %58 : i64
    %60 = llvm.inttoptr %59 : i64 to !llvm.ptr
    %61 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %62 = llvm.insertvalue %53, %61[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %63 = llvm.insertvalue %60, %62[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %64 = llvm.mlir.constant(0 : index) : i64
    %65 = llvm.insertvalue %64, %63[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %66 = llvm.insertvalue %44, %65[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %67 = llvm.insertvalue %45, %66[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %68 = llvm.insertvalue %45, %67[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %69 = llvm.insertvalue %46, %68[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %70 = llvm.mlir.constant(256 : index) : i64
    %71 = llvm.mlir.constant(256 : index) : i64
    %72 = llvm.mlir.constant(1 : index) : i64
    %73 = llvm.mlir.constant(65536 : index) : i64
    %74 = llvm.mlir.zero : !llvm.ptr
    %75 = llvm.getelementptr %74[%73] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %76 = llvm.ptrtoint %75 : !llvm.ptr to i64
    %77 = llvm.mlir.constant(64 : index) : i64
    %78 = llvm.add %76, %77 : i64
    %79 = llvm.call @malloc(%78) : (i64) -> !llvm.ptr
    %80 = llvm.ptrtoint %79 : !llvm.ptr to i64
    %81 = llvm.mlir.constant(1 : index) : i64
    %82 = llvm.sub %77, %81 : i64
    %83 = llvm.add %80, %82 : i64
    %84 = llvm.urem %83, %77 : i64
    %85 = llvm.sub %83, %84 : i64
    %86 = llvm.inttoptr %85 : i64 to !llvm.ptr
    %87 = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
    %88 = llvm.insertvalue %79, %87[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %89 = llvm.insertvalue %86, %88[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %90 = llvm.mlir.constant(0 : index) : i64
    %91 = llvm.insertvalue %90, %89[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %92 = llvm.insertvalue %70, %91[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %93 = llvm.insertvalue %71, %92[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %94 = llvm.insertvalue %71, %93[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %95 = llvm.insertvalue %72, %94[4, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.br ^bb1(%43 : i64)
  ^bb1(%96: i64):  // 2 preds: ^bb0, ^bb5
    %97 = llvm.icmp "slt" %96, %42 : i64
    llvm.cond_br %97, ^bb2, ^bb6
  ^bb2:  // pred: ^bb1
    llvm.br ^bb3(%43 : i64)
  ^bb3(%98: i64):  // 2 preds: ^bb2, ^bb4
    %99 = llvm.icmp "slt" %98, %42 : i64
    llvm.cond_br %99, ^bb4, ^bb5
  ^bb4:  // pred: ^bb3
    %100 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %101 = llvm.mlir.constant(256 : index) : i64
    %102 = llvm.mul %96, %101 : i64
    %103 = llvm.add %102, %98 : i64
    %104 = llvm.getelementptr %100[%103] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %37, %104 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %105 = llvm.add %96, %39 : i64
    %106 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %107 = llvm.mlir.constant(256 : index) : i64
    %108 = llvm.mul %105, %107 : i64
    %109 = llvm.add %108, %98 : i64
    %110 = llvm.getelementptr %106[%109] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %37, %110 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %111 = llvm.add %96, %36 : i64
    %112 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %113 = llvm.mlir.constant(256 : index) : i64
    %114 = llvm.mul %111, %113 : i64
    %115 = llvm.add %114, %98 : i64
    %116 = llvm.getelementptr %112[%115] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %37, %116 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %117 = llvm.add %96, %35 : i64
    %118 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %119 = llvm.mlir.constant(256 : index) : i64
    %120 = llvm.mul %117, %119 : i64
    %121 = llvm.add %120, %98 : i64
    %122 = llvm.getelementptr %118[%121] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %37, %122 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %123 = llvm.add %96, %34 : i64
    %124 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %125 = llvm.mlir.constant(256 : index) : i64
    %126 = llvm.mul %123, %125 : i64
    %127 = llvm.add %126, %98 : i64
    %128 = llvm.getelementptr %124[%127] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %37, %128 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %129 = llvm.add %96, %33 : i64
    %130 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %131 = llvm.mlir.constant(256 : index) : i64
    %132 = llvm.mul %129, %131 : i64
    %133 = llvm.add %132, %98 : i64
    %134 = llvm.getelementptr %130[%133] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %37, %134 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %135 = llvm.add %96, %32 : i64
    %136 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %137 = llvm.mlir.constant(256 : index) : i64
    %138 = llvm.mul %135, %137 : i64
    %139 = llvm.add %138, %98 : i64
    %140 = llvm.getelementptr %136[%139] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %37, %140 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %141 = llvm.add %96, %31 : i64
    %142 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %143 = llvm.mlir.constant(256 : index) : i64
    %144 = llvm.mul %141, %143 : i64
    %145 = llvm.add %144, %98 : i64
    %146 = llvm.getelementptr %142[%145] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %37, %146 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %147 = llvm.add %98, %40 : i64
    llvm.br ^bb3(%147 : i64)
  ^bb5:  // pred: ^bb3
    %148 = llvm.add %96, %41 : i64
    llvm.br ^bb1(%148 : i64)
  ^bb6:  // pred: ^bb1
    llvm.br ^bb7(%43 : i64)
  ^bb7(%149: i64):  // 2 preds: ^bb6, ^bb14
    %150 = llvm.icmp "slt" %149, %42 : i64
    llvm.cond_br %150, ^bb8, ^bb15
  ^bb8:  // pred: ^bb7
    llvm.br ^bb9(%43 : i64)
  ^bb9(%151: i64):  // 2 preds: ^bb8, ^bb13
    %152 = llvm.icmp "slt" %151, %42 : i64
    llvm.cond_br %152, ^bb10, ^bb14
  ^bb10:  // pred: ^bb9
    %153 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %154 = llvm.mlir.constant(256 : index) : i64
    %155 = llvm.mul %149, %154 : i64
    %156 = llvm.add %155, %151 : i64
    %157 = llvm.getelementptr %153[%156] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %158 = llvm.load %157 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %159 = llvm.add %149, %39 : i64
    %160 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %161 = llvm.mlir.constant(256 : index) : i64
    %162 = llvm.mul %159, %161 : i64
    %163 = llvm.add %162, %151 : i64
    %164 = llvm.getelementptr %160[%163] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %165 = llvm.load %164 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %166 = llvm.add %149, %36 : i64
    %167 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %168 = llvm.mlir.constant(256 : index) : i64
    %169 = llvm.mul %166, %168 : i64
    %170 = llvm.add %169, %151 : i64
    %171 = llvm.getelementptr %167[%170] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %172 = llvm.load %171 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %173 = llvm.add %149, %35 : i64
    %174 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %175 = llvm.mlir.constant(256 : index) : i64
    %176 = llvm.mul %173, %175 : i64
    %177 = llvm.add %176, %151 : i64
    %178 = llvm.getelementptr %174[%177] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %179 = llvm.load %178 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %180 = llvm.add %149, %34 : i64
    %181 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %182 = llvm.mlir.constant(256 : index) : i64
    %183 = llvm.mul %180, %182 : i64
    %184 = llvm.add %183, %151 : i64
    %185 = llvm.getelementptr %181[%184] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %186 = llvm.load %185 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %187 = llvm.add %149, %33 : i64
    %188 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %189 = llvm.mlir.constant(256 : index) : i64
    %190 = llvm.mul %187, %189 : i64
    %191 = llvm.add %190, %151 : i64
    %192 = llvm.getelementptr %188[%191] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %193 = llvm.load %192 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %194 = llvm.add %149, %32 : i64
    %195 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %196 = llvm.mlir.constant(256 : index) : i64
    %197 = llvm.mul %194, %196 : i64
    %198 = llvm.add %197, %151 : i64
    %199 = llvm.getelementptr %195[%198] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %200 = llvm.load %199 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %201 = llvm.add %149, %31 : i64
    %202 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %203 = llvm.mlir.constant(256 : index) : i64
    %204 = llvm.mul %201, %203 : i64
    %205 = llvm.add %204, %151 : i64
    %206 = llvm.getelementptr %202[%205] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %207 = llvm.load %206 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %208 = llvm.insertvalue %158, %30[0] : !llvm.array<8 x vector<32xf32>> 
    %209 = llvm.insertvalue %165, %208[1] : !llvm.array<8 x vector<32xf32>> 
    %210 = llvm.insertvalue %172, %209[2] : !llvm.array<8 x vector<32xf32>> 
    %211 = llvm.insertvalue %179, %210[3] : !llvm.array<8 x vector<32xf32>> 
    %212 = llvm.insertvalue %186, %211[4] : !llvm.array<8 x vector<32xf32>> 
    %213 = llvm.insertvalue %193, %212[5] : !llvm.array<8 x vector<32xf32>> 
    %214 = llvm.insertvalue %200, %213[6] : !llvm.array<8 x vector<32xf32>> 
    %215 = llvm.insertvalue %207, %214[7] : !llvm.array<8 x vector<32xf32>> 
    llvm.br ^bb11(%43, %215 : i64, !llvm.array<8 x vector<32xf32>>)
  ^bb11(%216: i64, %217: !llvm.array<8 x vector<32xf32>>):  // 2 preds: ^bb10, ^bb12
    %218 = llvm.icmp "slt" %216, %42 : i64
    llvm.cond_br %218, ^bb12, ^bb13
  ^bb12:  // pred: ^bb11
    %219 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %220 = llvm.mlir.constant(256 : index) : i64
    %221 = llvm.mul %149, %220 : i64
    %222 = llvm.add %221, %216 : i64
    %223 = llvm.getelementptr %219[%222] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %224 = llvm.load %223 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %225 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %226 = llvm.mlir.constant(256 : index) : i64
    %227 = llvm.mul %159, %226 : i64
    %228 = llvm.add %227, %216 : i64
    %229 = llvm.getelementptr %225[%228] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %230 = llvm.load %229 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %231 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %232 = llvm.mlir.constant(256 : index) : i64
    %233 = llvm.mul %166, %232 : i64
    %234 = llvm.add %233, %216 : i64
    %235 = llvm.getelementptr %231[%234] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %236 = llvm.load %235 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %237 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %238 = llvm.mlir.constant(256 : index) : i64
    %239 = llvm.mul %173, %238 : i64
    %240 = llvm.add %239, %216 : i64
    %241 = llvm.getelementptr %237[%240] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %242 = llvm.load %241 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %243 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %244 = llvm.mlir.constant(256 : index) : i64
    %245 = llvm.mul %180, %244 : i64
    %246 = llvm.add %245, %216 : i64
    %247 = llvm.getelementptr %243[%246] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %248 = llvm.load %247 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %249 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %250 = llvm.mlir.constant(256 : index) : i64
    %251 = llvm.mul %187, %250 : i64
    %252 = llvm.add %251, %216 : i64
    %253 = llvm.getelementptr %249[%252] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %254 = llvm.load %253 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %255 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %256 = llvm.mlir.constant(256 : index) : i64
    %257 = llvm.mul %194, %256 : i64
    %258 = llvm.add %257, %216 : i64
    %259 = llvm.getelementptr %255[%258] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %260 = llvm.load %259 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %261 = llvm.extractvalue %29[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %262 = llvm.mlir.constant(256 : index) : i64
    %263 = llvm.mul %201, %262 : i64
    %264 = llvm.add %263, %216 : i64
    %265 = llvm.getelementptr %261[%264] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %266 = llvm.load %265 {alignment = 4 : i64} : !llvm.ptr -> vector<1xf32>
    %267 = llvm.extractvalue %21[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %268 = llvm.mlir.constant(256 : index) : i64
    %269 = llvm.mul %216, %268 : i64
    %270 = llvm.add %269, %151 : i64
    %271 = llvm.getelementptr %267[%270] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %272 = llvm.load %271 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %273 = llvm.mlir.constant(0 : i64) : i64
    %274 = llvm.extractelement %224[%273 : i64] : vector<1xf32>
    %275 = llvm.mlir.poison : vector<32xf32>
    %276 = llvm.mlir.constant(0 : i32) : i32
    %277 = llvm.insertelement %274, %275[%276 : i32] : vector<32xf32>
    %278 = llvm.shufflevector %277, %275 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<32xf32> 
    %279 = llvm.extractvalue %217[0] : !llvm.array<8 x vector<32xf32>> 
    %280 = llvm.intr.fmuladd(%278, %272, %279) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %281 = llvm.mlir.constant(0 : i64) : i64
    %282 = llvm.extractelement %230[%281 : i64] : vector<1xf32>
    %283 = llvm.mlir.poison : vector<32xf32>
    %284 = llvm.mlir.constant(0 : i32) : i32
    %285 = llvm.insertelement %282, %283[%284 : i32] : vector<32xf32>
    %286 = llvm.shufflevector %285, %283 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<32xf32> 
    %287 = llvm.extractvalue %217[1] : !llvm.array<8 x vector<32xf32>> 
    %288 = llvm.intr.fmuladd(%286, %272, %287) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %289 = llvm.mlir.constant(0 : i64) : i64
    %290 = llvm.extractelement %236[%289 : i64] : vector<1xf32>
    %291 = llvm.mlir.poison : vector<32xf32>
    %292 = llvm.mlir.constant(0 : i32) : i32
    %293 = llvm.insertelement %290, %291[%292 : i32] : vector<32xf32>
    %294 = llvm.shufflevector %293, %291 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<32xf32> 
    %295 = llvm.extractvalue %217[2] : !llvm.array<8 x vector<32xf32>> 
    %296 = llvm.intr.fmuladd(%294, %272, %295) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %297 = llvm.mlir.constant(0 : i64) : i64
    %298 = llvm.extractelement %242[%297 : i64] : vector<1xf32>
    %299 = llvm.mlir.poison : vector<32xf32>
    %300 = llvm.mlir.constant(0 : i32) : i32
    %301 = llvm.insertelement %298, %299[%300 : i32] : vector<32xf32>
    %302 = llvm.shufflevector %301, %299 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<32xf32> 
    %303 = llvm.extractvalue %217[3] : !llvm.array<8 x vector<32xf32>> 
    %304 = llvm.intr.fmuladd(%302, %272, %303) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %305 = llvm.mlir.constant(0 : i64) : i64
    %306 = llvm.extractelement %248[%305 : i64] : vector<1xf32>
    %307 = llvm.mlir.poison : vector<32xf32>
    %308 = llvm.mlir.constant(0 : i32) : i32
    %309 = llvm.insertelement %306, %307[%308 : i32] : vector<32xf32>
    %310 = llvm.shufflevector %309, %307 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<32xf32> 
    %311 = llvm.extractvalue %217[4] : !llvm.array<8 x vector<32xf32>> 
    %312 = llvm.intr.fmuladd(%310, %272, %311) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %313 = llvm.mlir.constant(0 : i64) : i64
    %314 = llvm.extractelement %254[%313 : i64] : vector<1xf32>
    %315 = llvm.mlir.poison : vector<32xf32>
    %316 = llvm.mlir.constant(0 : i32) : i32
    %317 = llvm.insertelement %314, %315[%316 : i32] : vector<32xf32>
    %318 = llvm.shufflevector %317, %315 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<32xf32> 
    %319 = llvm.extractvalue %217[5] : !llvm.array<8 x vector<32xf32>> 
    %320 = llvm.intr.fmuladd(%318, %272, %319) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %321 = llvm.mlir.constant(0 : i64) : i64
    %322 = llvm.extractelement %260[%321 : i64] : vector<1xf32>
    %323 = llvm.mlir.poison : vector<32xf32>
    %324 = llvm.mlir.constant(0 : i32) : i32
    %325 = llvm.insertelement %322, %323[%324 : i32] : vector<32xf32>
    %326 = llvm.shufflevector %325, %323 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<32xf32> 
    %327 = llvm.extractvalue %217[6] : !llvm.array<8 x vector<32xf32>> 
    %328 = llvm.intr.fmuladd(%326, %272, %327) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %329 = llvm.mlir.constant(0 : i64) : i64
    %330 = llvm.extractelement %266[%329 : i64] : vector<1xf32>
    %331 = llvm.mlir.poison : vector<32xf32>
    %332 = llvm.mlir.constant(0 : i32) : i32
    %333 = llvm.insertelement %330, %331[%332 : i32] : vector<32xf32>
    %334 = llvm.shufflevector %333, %331 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] : vector<32xf32> 
    %335 = llvm.extractvalue %217[7] : !llvm.array<8 x vector<32xf32>> 
    %336 = llvm.intr.fmuladd(%334, %272, %335) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %337 = llvm.insertvalue %280, %30[0] : !llvm.array<8 x vector<32xf32>> 
    %338 = llvm.insertvalue %288, %337[1] : !llvm.array<8 x vector<32xf32>> 
    %339 = llvm.insertvalue %296, %338[2] : !llvm.array<8 x vector<32xf32>> 
    %340 = llvm.insertvalue %304, %339[3] : !llvm.array<8 x vector<32xf32>> 
    %341 = llvm.insertvalue %312, %340[4] : !llvm.array<8 x vector<32xf32>> 
    %342 = llvm.insertvalue %320, %341[5] : !llvm.array<8 x vector<32xf32>> 
    %343 = llvm.insertvalue %328, %342[6] : !llvm.array<8 x vector<32xf32>> 
    %344 = llvm.insertvalue %336, %343[7] : !llvm.array<8 x vector<32xf32>> 
    %345 = llvm.add %216, %39 : i64
    llvm.br ^bb11(%345, %344 : i64, !llvm.array<8 x vector<32xf32>>)
  ^bb13:  // pred: ^bb11
    %346 = llvm.extractvalue %217[0] : !llvm.array<8 x vector<32xf32>> 
    %347 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %348 = llvm.mlir.constant(256 : index) : i64
    %349 = llvm.mul %149, %348 : i64
    %350 = llvm.add %349, %151 : i64
    %351 = llvm.getelementptr %347[%350] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %346, %351 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %352 = llvm.extractvalue %217[1] : !llvm.array<8 x vector<32xf32>> 
    %353 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %354 = llvm.mlir.constant(256 : index) : i64
    %355 = llvm.mul %159, %354 : i64
    %356 = llvm.add %355, %151 : i64
    %357 = llvm.getelementptr %353[%356] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %352, %357 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %358 = llvm.extractvalue %217[2] : !llvm.array<8 x vector<32xf32>> 
    %359 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %360 = llvm.mlir.constant(256 : index) : i64
    %361 = llvm.mul %166, %360 : i64
    %362 = llvm.add %361, %151 : i64
    %363 = llvm.getelementptr %359[%362] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %358, %363 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %364 = llvm.extractvalue %217[3] : !llvm.array<8 x vector<32xf32>> 
    %365 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %366 = llvm.mlir.constant(256 : index) : i64
    %367 = llvm.mul %173, %366 : i64
    %368 = llvm.add %367, %151 : i64
    %369 = llvm.getelementptr %365[%368] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %364, %369 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %370 = llvm.extractvalue %217[4] : !llvm.array<8 x vector<32xf32>> 
    %371 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %372 = llvm.mlir.constant(256 : index) : i64
    %373 = llvm.mul %180, %372 : i64
    %374 = llvm.add %373, %151 : i64
    %375 = llvm.getelementptr %371[%374] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %370, %375 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %376 = llvm.extractvalue %217[5] : !llvm.array<8 x vector<32xf32>> 
    %377 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %378 = llvm.mlir.constant(256 : index) : i64
    %379 = llvm.mul %187, %378 : i64
    %380 = llvm.add %379, %151 : i64
    %381 = llvm.getelementptr %377[%380] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %376, %381 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %382 = llvm.extractvalue %217[6] : !llvm.array<8 x vector<32xf32>> 
    %383 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %384 = llvm.mlir.constant(256 : index) : i64
    %385 = llvm.mul %194, %384 : i64
    %386 = llvm.add %385, %151 : i64
    %387 = llvm.getelementptr %383[%386] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %382, %387 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %388 = llvm.extractvalue %217[7] : !llvm.array<8 x vector<32xf32>> 
    %389 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %390 = llvm.mlir.constant(256 : index) : i64
    %391 = llvm.mul %201, %390 : i64
    %392 = llvm.add %391, %151 : i64
    %393 = llvm.getelementptr %389[%392] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %388, %393 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %394 = llvm.add %151, %40 : i64
    llvm.br ^bb9(%394 : i64)
  ^bb14:  // pred: ^bb9
    %395 = llvm.add %149, %41 : i64
    llvm.br ^bb7(%395 : i64)
  ^bb15:  // pred: ^bb7
    llvm.br ^bb16(%43 : i64)
  ^bb16(%396: i64):  // 2 preds: ^bb15, ^bb20
    %397 = llvm.icmp "slt" %396, %42 : i64
    llvm.cond_br %397, ^bb17, ^bb21
  ^bb17:  // pred: ^bb16
    llvm.br ^bb18(%43 : i64)
  ^bb18(%398: i64):  // 2 preds: ^bb17, ^bb19
    %399 = llvm.icmp "slt" %398, %42 : i64
    llvm.cond_br %399, ^bb19, ^bb20
  ^bb19:  // pred: ^bb18
    %400 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %401 = llvm.mlir.constant(256 : index) : i64
    %402 = llvm.mul %396, %401 : i64
    %403 = llvm.add %402, %398 : i64
    %404 = llvm.getelementptr %400[%403] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %405 = llvm.load %404 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %406 = llvm.add %396, %39 : i64
    %407 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %408 = llvm.mlir.constant(256 : index) : i64
    %409 = llvm.mul %406, %408 : i64
    %410 = llvm.add %409, %398 : i64
    %411 = llvm.getelementptr %407[%410] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %412 = llvm.load %411 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %413 = llvm.add %396, %36 : i64
    %414 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %415 = llvm.mlir.constant(256 : index) : i64
    %416 = llvm.mul %413, %415 : i64
    %417 = llvm.add %416, %398 : i64
    %418 = llvm.getelementptr %414[%417] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %419 = llvm.load %418 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %420 = llvm.add %396, %35 : i64
    %421 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %422 = llvm.mlir.constant(256 : index) : i64
    %423 = llvm.mul %420, %422 : i64
    %424 = llvm.add %423, %398 : i64
    %425 = llvm.getelementptr %421[%424] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %426 = llvm.load %425 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %427 = llvm.add %396, %34 : i64
    %428 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %429 = llvm.mlir.constant(256 : index) : i64
    %430 = llvm.mul %427, %429 : i64
    %431 = llvm.add %430, %398 : i64
    %432 = llvm.getelementptr %428[%431] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %433 = llvm.load %432 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %434 = llvm.add %396, %33 : i64
    %435 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %436 = llvm.mlir.constant(256 : index) : i64
    %437 = llvm.mul %434, %436 : i64
    %438 = llvm.add %437, %398 : i64
    %439 = llvm.getelementptr %435[%438] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %440 = llvm.load %439 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %441 = llvm.add %396, %32 : i64
    %442 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %443 = llvm.mlir.constant(256 : index) : i64
    %444 = llvm.mul %441, %443 : i64
    %445 = llvm.add %444, %398 : i64
    %446 = llvm.getelementptr %442[%445] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %447 = llvm.load %446 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %448 = llvm.add %396, %31 : i64
    %449 = llvm.extractvalue %95[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %450 = llvm.mlir.constant(256 : index) : i64
    %451 = llvm.mul %448, %450 : i64
    %452 = llvm.add %451, %398 : i64
    %453 = llvm.getelementptr %449[%452] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %454 = llvm.load %453 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %455 = llvm.insertvalue %405, %30[0] : !llvm.array<8 x vector<32xf32>> 
    %456 = llvm.insertvalue %412, %455[1] : !llvm.array<8 x vector<32xf32>> 
    %457 = llvm.insertvalue %419, %456[2] : !llvm.array<8 x vector<32xf32>> 
    %458 = llvm.insertvalue %426, %457[3] : !llvm.array<8 x vector<32xf32>> 
    %459 = llvm.insertvalue %433, %458[4] : !llvm.array<8 x vector<32xf32>> 
    %460 = llvm.insertvalue %440, %459[5] : !llvm.array<8 x vector<32xf32>> 
    %461 = llvm.insertvalue %447, %460[6] : !llvm.array<8 x vector<32xf32>> 
    %462 = llvm.insertvalue %454, %461[7] : !llvm.array<8 x vector<32xf32>> 
    %463 = llvm.extractvalue %13[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> 
    %464 = llvm.getelementptr %463[%398] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %465 = llvm.load %464 {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
    %466 = llvm.insertvalue %465, %30[0] : !llvm.array<8 x vector<32xf32>> 
    %467 = llvm.insertvalue %465, %466[1] : !llvm.array<8 x vector<32xf32>> 
    %468 = llvm.insertvalue %465, %467[2] : !llvm.array<8 x vector<32xf32>> 
    %469 = llvm.insertvalue %465, %468[3] : !llvm.array<8 x vector<32xf32>> 
    %470 = llvm.insertvalue %465, %469[4] : !llvm.array<8 x vector<32xf32>> 
    %471 = llvm.insertvalue %465, %470[5] : !llvm.array<8 x vector<32xf32>> 
    %472 = llvm.insertvalue %465, %471[6] : !llvm.array<8 x vector<32xf32>> 
    %473 = llvm.insertvalue %465, %472[7] : !llvm.array<8 x vector<32xf32>> 
    %474 = llvm.mlir.poison : !llvm.array<8 x vector<32xf32>>
    %475 = llvm.extractvalue %462[0] : !llvm.array<8 x vector<32xf32>> 
    %476 = llvm.extractvalue %473[0] : !llvm.array<8 x vector<32xf32>> 
    %477 = llvm.fadd %475, %476 : vector<32xf32>
    %478 = llvm.insertvalue %477, %474[0] : !llvm.array<8 x vector<32xf32>> 
    %479 = llvm.extractvalue %462[1] : !llvm.array<8 x vector<32xf32>> 
    %480 = llvm.extractvalue %473[1] : !llvm.array<8 x vector<32xf32>> 
    %481 = llvm.fadd %479, %480 : vector<32xf32>
    %482 = llvm.insertvalue %481, %478[1] : !llvm.array<8 x vector<32xf32>> 
    %483 = llvm.extractvalue %462[2] : !llvm.array<8 x vector<32xf32>> 
    %484 = llvm.extractvalue %473[2] : !llvm.array<8 x vector<32xf32>> 
    %485 = llvm.fadd %483, %484 : vector<32xf32>
    %486 = llvm.insertvalue %485, %482[2] : !llvm.array<8 x vector<32xf32>> 
    %487 = llvm.extractvalue %462[3] : !llvm.array<8 x vector<32xf32>> 
    %488 = llvm.extractvalue %473[3] : !llvm.array<8 x vector<32xf32>> 
    %489 = llvm.fadd %487, %488 : vector<32xf32>
    %490 = llvm.insertvalue %489, %486[3] : !llvm.array<8 x vector<32xf32>> 
    %491 = llvm.extractvalue %462[4] : !llvm.array<8 x vector<32xf32>> 
    %492 = llvm.extractvalue %473[4] : !llvm.array<8 x vector<32xf32>> 
    %493 = llvm.fadd %491, %492 : vector<32xf32>
    %494 = llvm.insertvalue %493, %490[4] : !llvm.array<8 x vector<32xf32>> 
    %495 = llvm.extractvalue %462[5] : !llvm.array<8 x vector<32xf32>> 
    %496 = llvm.extractvalue %473[5] : !llvm.array<8 x vector<32xf32>> 
    %497 = llvm.fadd %495, %496 : vector<32xf32>
    %498 = llvm.insertvalue %497, %494[5] : !llvm.array<8 x vector<32xf32>> 
    %499 = llvm.extractvalue %462[6] : !llvm.array<8 x vector<32xf32>> 
    %500 = llvm.extractvalue %473[6] : !llvm.array<8 x vector<32xf32>> 
    %501 = llvm.fadd %499, %500 : vector<32xf32>
    %502 = llvm.insertvalue %501, %498[6] : !llvm.array<8 x vector<32xf32>> 
    %503 = llvm.extractvalue %462[7] : !llvm.array<8 x vector<32xf32>> 
    %504 = llvm.extractvalue %473[7] : !llvm.array<8 x vector<32xf32>> 
    %505 = llvm.fadd %503, %504 : vector<32xf32>
    %506 = llvm.insertvalue %505, %502[7] : !llvm.array<8 x vector<32xf32>> 
    %507 = llvm.mlir.poison : !llvm.array<8 x vector<32xf32>>
    %508 = llvm.extractvalue %506[0] : !llvm.array<8 x vector<32xf32>> 
    %509 = llvm.extractvalue %38[0] : !llvm.array<8 x vector<32xf32>> 
    %510 = llvm.intr.maximum(%508, %509) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %511 = llvm.insertvalue %510, %507[0] : !llvm.array<8 x vector<32xf32>> 
    %512 = llvm.extractvalue %506[1] : !llvm.array<8 x vector<32xf32>> 
    %513 = llvm.extractvalue %38[1] : !llvm.array<8 x vector<32xf32>> 
    %514 = llvm.intr.maximum(%512, %513) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %515 = llvm.insertvalue %514, %511[1] : !llvm.array<8 x vector<32xf32>> 
    %516 = llvm.extractvalue %506[2] : !llvm.array<8 x vector<32xf32>> 
    %517 = llvm.extractvalue %38[2] : !llvm.array<8 x vector<32xf32>> 
    %518 = llvm.intr.maximum(%516, %517) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %519 = llvm.insertvalue %518, %515[2] : !llvm.array<8 x vector<32xf32>> 
    %520 = llvm.extractvalue %506[3] : !llvm.array<8 x vector<32xf32>> 
    %521 = llvm.extractvalue %38[3] : !llvm.array<8 x vector<32xf32>> 
    %522 = llvm.intr.maximum(%520, %521) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %523 = llvm.insertvalue %522, %519[3] : !llvm.array<8 x vector<32xf32>> 
    %524 = llvm.extractvalue %506[4] : !llvm.array<8 x vector<32xf32>> 
    %525 = llvm.extractvalue %38[4] : !llvm.array<8 x vector<32xf32>> 
    %526 = llvm.intr.maximum(%524, %525) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %527 = llvm.insertvalue %526, %523[4] : !llvm.array<8 x vector<32xf32>> 
    %528 = llvm.extractvalue %506[5] : !llvm.array<8 x vector<32xf32>> 
    %529 = llvm.extractvalue %38[5] : !llvm.array<8 x vector<32xf32>> 
    %530 = llvm.intr.maximum(%528, %529) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %531 = llvm.insertvalue %530, %527[5] : !llvm.array<8 x vector<32xf32>> 
    %532 = llvm.extractvalue %506[6] : !llvm.array<8 x vector<32xf32>> 
    %533 = llvm.extractvalue %38[6] : !llvm.array<8 x vector<32xf32>> 
    %534 = llvm.intr.maximum(%532, %533) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %535 = llvm.insertvalue %534, %531[6] : !llvm.array<8 x vector<32xf32>> 
    %536 = llvm.extractvalue %506[7] : !llvm.array<8 x vector<32xf32>> 
    %537 = llvm.extractvalue %38[7] : !llvm.array<8 x vector<32xf32>> 
    %538 = llvm.intr.maximum(%536, %537) : (vector<32xf32>, vector<32xf32>) -> vector<32xf32>
    %539 = llvm.insertvalue %538, %535[7] : !llvm.array<8 x vector<32xf32>> 
    %540 = llvm.extractvalue %539[0] : !llvm.array<8 x vector<32xf32>> 
    %541 = llvm.extractvalue %69[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %542 = llvm.mlir.constant(256 : index) : i64
    %543 = llvm.mul %396, %542 : i64
    %544 = llvm.add %543, %398 : i64
    %545 = llvm.getelementptr %541[%544] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %540, %545 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %546 = llvm.extractvalue %539[1] : !llvm.array<8 x vector<32xf32>> 
    %547 = llvm.extractvalue %69[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %548 = llvm.mlir.constant(256 : index) : i64
    %549 = llvm.mul %406, %548 : i64
    %550 = llvm.add %549, %398 : i64
    %551 = llvm.getelementptr %547[%550] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %546, %551 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %552 = llvm.extractvalue %539[2] : !llvm.array<8 x vector<32xf32>> 
    %553 = llvm.extractvalue %69[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %554 = llvm.mlir.constant(256 : index) : i64
    %555 = llvm.mul %413, %554 : i64
    %556 = llvm.add %555, %398 : i64
    %557 = llvm.getelementptr %553[%556] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %552, %557 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %558 = llvm.extractvalue %539[3] : !llvm.array<8 x vector<32xf32>> 
    %559 = llvm.extractvalue %69[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %560 = llvm.mlir.constant(256 : index) : i64
    %561 = llvm.mul %420, %560 : i64
    %562 = llvm.add %561, %398 : i64
    %563 = llvm.getelementptr %559[%562] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %558, %563 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %564 = llvm.extractvalue %539[4] : !llvm.array<8 x vector<32xf32>> 
    %565 = llvm.extractvalue %69[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %566 = llvm.mlir.constant(256 : index) : i64
    %567 = llvm.mul %427, %566 : i64
    %568 = llvm.add %567, %398 : i64
    %569 = llvm.getelementptr %565[%568] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %564, %569 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %570 = llvm.extractvalue %539[5] : !llvm.array<8 x vector<32xf32>> 
    %571 = llvm.extractvalue %69[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %572 = llvm.mlir.constant(256 : index) : i64
    %573 = llvm.mul %434, %572 : i64
    %574 = llvm.add %573, %398 : i64
    %575 = llvm.getelementptr %571[%574] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %570, %575 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %576 = llvm.extractvalue %539[6] : !llvm.array<8 x vector<32xf32>> 
    %577 = llvm.extractvalue %69[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %578 = llvm.mlir.constant(256 : index) : i64
    %579 = llvm.mul %441, %578 : i64
    %580 = llvm.add %579, %398 : i64
    %581 = llvm.getelementptr %577[%580] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %576, %581 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %582 = llvm.extractvalue %539[7] : !llvm.array<8 x vector<32xf32>> 
    %583 = llvm.extractvalue %69[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %584 = llvm.mlir.constant(256 : index) : i64
    %585 = llvm.mul %448, %584 : i64
    %586 = llvm.add %585, %398 : i64
    %587 = llvm.getelementptr %583[%586] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %582, %587 {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
    %588 = llvm.add %398, %40 : i64
    llvm.br ^bb18(%588 : i64)
  ^bb20:  // pred: ^bb18
    %589 = llvm.add %396, %41 : i64
    llvm.br ^bb16(%589 : i64)
  ^bb21:  // pred: ^bb16
    %590 = llvm.mlir.constant(1 : index) : i64
    %591 = llvm.extractvalue %69[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %592 = llvm.mul %590, %591 : i64
    %593 = llvm.extractvalue %69[3, 1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %594 = llvm.mul %592, %593 : i64
    %595 = llvm.mlir.zero : !llvm.ptr
    %596 = llvm.getelementptr %595[1] : (!llvm.ptr) -> !llvm.ptr, f32
    %597 = llvm.ptrtoint %596 : !llvm.ptr to i64
    %598 = llvm.mul %594, %597 : i64
    %599 = llvm.extractvalue %69[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %600 = llvm.extractvalue %69[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %601 = llvm.getelementptr %599[%600] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %602 = llvm.extractvalue %7[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %603 = llvm.extractvalue %7[2] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    %604 = llvm.getelementptr %602[%603] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    "llvm.intr.memcpy"(%604, %601, %598) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
    %605 = llvm.extractvalue %69[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @free(%605) : (!llvm.ptr) -> ()
    %606 = llvm.extractvalue %95[0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> 
    llvm.call @free(%606) : (!llvm.ptr) -> ()
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
